/// The summary of one measure's samples: every figure reports medians and p99s of these.
struct Summary: Codable, Sendable {
    let count: Int
    let median: Double
    let p99: Double
    let min: Double
    let max: Double

    /// Summarises `samples`; `nil` when there are none.
    ///
    /// Percentiles are nearest-rank, so a p99 over fewer than 100 samples is the largest one: with few rounds,
    /// read it as "the worst round".
    init?(_ samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        count = sorted.count
        median = sorted.count % 2 == 1
            ? sorted[sorted.count / 2]
            : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        p99 = Self.nearestRank(0.99, in: sorted)
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }

    private static func nearestRank(_ fraction: Double, in sorted: [Double]) -> Double {
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank - 1))]
    }
}

/// One quantity measured round by round over an expired token and over a valid one, with each round's ratio: what
/// the figures that price a refresh report.
struct ExpiredVersusValid {
    private(set) var expired: [Double] = []
    private(set) var valid: [Double] = []
    /// Each round's expired sample over its valid one.
    private(set) var ratios: [Double] = []

    mutating func append(expired: Double, valid: Double) {
        self.expired.append(expired)
        self.valid.append(valid)
        ratios.append(expired / valid)
    }
}
