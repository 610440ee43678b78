import Foundation

/// The unit a measure's numbers are in; it decides how the table prints them.
enum Unit: String, Codable, Sendable {
    case seconds = "s"
    case milliseconds = "ms"
    case microseconds = "µs"
    case nanoseconds = "ns"
    case ratio = "×"
    case perSecond = "/s"
    case count = ""
}

/// One row of a figure: the median and p99 of a set of samples.
struct Measure: Codable, Sendable {
    let name: String
    let unit: Unit
    let summary: Summary
    /// Every sample, so the JSON can be re-analysed.
    let samples: [Double]

    init?(_ name: String, _ unit: Unit, _ samples: [Double]) {
        guard let summary = Summary(samples) else { return nil }
        self.name = name
        self.unit = unit
        self.summary = summary
        self.samples = samples
    }
}

/// A goal from the issue and whether this run reached it.
struct Target: Codable, Sendable {
    let name: String
    let goal: String
    let value: String
    let met: Bool
}

/// The outcome of one figure.
struct FigureReport: Codable, Sendable {
    let id: Int
    let title: String
    var measures: [Measure] = []
    /// Counts by row, for a figure whose outcome is counts of a few kinds rather than samples (figure 8).
    var counts: CountTable?
    var targets: [Target] = []
    var notes: [String] = []
    /// Why the figure did not run (a missing peer) or stopped (an error); `nil` when it ran.
    var skipped: String?

    init(id: Int, title: String) {
        self.id = id
        self.title = title
    }

    mutating func add(_ name: String, _ unit: Unit, _ samples: [Double]) {
        if let measure = Measure(name, unit, samples) { measures.append(measure) }
    }

    /// Adds the three rows of `samples`: the expired and the valid samples in `unit`, then their ratios.
    mutating func add(_ samples: ExpiredVersusValid, _ unit: Unit, expired: String, valid: String, ratio: String) {
        add(expired, unit, samples.expired)
        add(valid, unit, samples.valid)
        add(ratio, .ratio, samples.ratios)
    }

    mutating func target(_ name: String, goal: String, value: String, met: Bool) {
        targets.append(Target(name: name, goal: goal, value: value, met: met))
    }

    /// The goal of every figure where many clients meet one expired token: exactly one refresh grant per round.
    mutating func targetOneRefreshPerRound(_ name: String, _ grants: [Double]) {
        target(
            name, goal: "exactly 1 in every round", value: grants.map { Format.number($0) }.joined(separator: ", "),
            met: grants.allSatisfy { $0 == 1 })
    }
}

/// Counts in named columns, one row per kind: for example rounds, sessions lost and reuse detections per fault.
struct CountTable: Codable, Sendable {
    struct Row: Codable, Sendable {
        let name: String
        /// One count per column.
        let counts: [Int]
    }

    /// The heading of the rows' names, e.g. "fault".
    let heading: String
    let columns: [String]
    var rows: [Row] = []
}

/// Why a peer, a child process or a round failed: a sentence for the report.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// Everything one run measured, written as `bench-results.json`.
struct BenchReport: Codable, Sendable {
    struct Machine: Codable, Sendable {
        let cores: Int
        let startedAt: String
        let loadAverage: String
    }

    let machine: Machine
    let options: [String: String]
    var figures: [FigureReport] = []
}

/// Formats numbers for the table: three significant digits, no exponent.
enum Format {
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return grouped(Int(value)) }
        let magnitude = abs(value)
        let decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3
        return String(format: "%.\(decimals)f", value)
    }

    static func value(_ value: Double, _ unit: Unit) -> String {
        switch unit {
        case .count: return number(value)
        case .ratio: return String(format: value >= 100 ? "%.0f×" : "%.2f×", value)
        case .perSecond: return grouped(Int(value.rounded())) + "/s"
        default: return "\(number(value)) \(unit.rawValue)"
        }
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(abs(value))
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return value < 0 ? "-" + out : out
    }
}
