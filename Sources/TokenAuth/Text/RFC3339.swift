#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// RFC 3339 timestamps in UTC, with or without fractional seconds: the stored format's dates (``StoredBundleFormat``).
package enum RFC3339 {
    // Made once: each format style sets up a Gregorian calendar.
    private static let whole = Date.ISO8601FormatStyle(includingFractionalSeconds: false, timeZone: .gmt)
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// `2030-01-02T03:04:05Z`, or with milliseconds (`2030-01-02T03:04:05.250Z`) when the date has a fraction of a
    /// second: a token that lives 2 s, its issue and expiry cut to whole seconds, looked a second older than it was
    /// and was refreshed while still fresh.
    package static func format(_ date: Date) -> String {
        let total = (date.timeIntervalSinceReferenceDate * 1000).rounded()
        guard total.isFinite else { return date.formatted(whole) }
        let seconds = (total / 1000).rounded(.down)
        let text = Date(timeIntervalSinceReferenceDate: seconds).formatted(whole)
        let milliseconds = Int(total - seconds * 1000)
        guard milliseconds > 0, text.hasSuffix("Z") else { return text }
        let digits = String(milliseconds)
        return "\(text.dropLast()).\(String(repeating: "0", count: 3 - digits.count))\(digits)Z"
    }

    /// The moment `text` names, or `nil` when it is not an RFC 3339 `date-time` (§5.6) that exists.
    ///
    /// The format styles read more than that and roll what does not exist over: `2030-02-30` is 2 March, `25:00`
    /// the next day, a second of 60 the next minute, and a five-digit year or an offset of `+0200` or `GMT` are
    /// read too. So the text is checked against the grammar and its fields against the calendar first
    /// (``isDateTime(_:)``), and only then read: the canonical form by arithmetic, any other by the format styles.
    package static func parse(_ text: String) -> Date? {
        if let date = canonical(text) { return date }
        guard isDateTime(text) else { return nil }
        // The grammar allows a lowercase "t" and "z" (§5.6's note), which the format styles refuse.
        let upper = text.uppercased()
        if let date = try? whole.parse(upper) { return date }
        return try? fractional.parse(upper)
    }

    /// The forms ``format(_:)`` writes, `2030-01-02T03:04:05Z` and `2030-01-02T03:04:05.250Z`, from the year 1583 on,
    /// read by arithmetic; `nil` for any other text, which the format styles read. Every stored bundle's dates are in
    /// these forms, and `tokenctl token` reads one at each start: setting up the format style's calendar for it was
    /// about a tenth of that command's own time.
    package static func canonical(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var milliseconds = 0
        if bytes.count == 24, bytes[19] == UInt8(ascii: "."), bytes[23] == UInt8(ascii: "Z") {
            guard let fraction = number(bytes, 20..<23) else { return nil }
            milliseconds = fraction
        } else {
            guard bytes.count == 20, bytes[19] == UInt8(ascii: "Z") else { return nil }
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        // From 1583 only: before the Gregorian reform of October 1582 the format styles' calendar counts Julian days.
        guard let year = number(bytes, 0..<4), year >= 1583, let month = number(bytes, 5..<7),
            let day = number(bytes, 8..<10), let hour = number(bytes, 11..<13), let minute = number(bytes, 14..<16),
            let second = number(bytes, 17..<19)
        else { return nil }
        let date = CivilTime.date(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return milliseconds == 0 ? date : date?.addingTimeInterval(Double(milliseconds) / 1000)
    }

    /// Whether `text` is an RFC 3339 `date-time` whose date and time exist: `YYYY-MM-DDTHH:MM:SS`, an optional
    /// fraction of a second, then `Z` or an offset `±HH:MM` of at most 23:59 (`T` and `Z` in either case). The
    /// year is one of 0001…9999, the day one its month has in the Gregorian calendar, the time within 00:00:00…23:59:59:
    /// a leap second (`:60`) is refused, since `Date` counts none.
    package static func isDateTime(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] | 0x20 == UInt8(ascii: "t"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(bytes, 0..<4), let month = number(bytes, 5..<7), let day = number(bytes, 8..<10),
            let hour = number(bytes, 11..<13), let minute = number(bytes, 14..<16), let second = number(bytes, 17..<19),
            CivilTime.date(year: year, month: month, day: day, hour: hour, minute: minute, second: second) != nil
        else { return false }
        var rest = bytes[19...]
        if rest.first == UInt8(ascii: ".") {
            let digits = rest.dropFirst().prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            guard !digits.isEmpty else { return false }
            rest = rest.dropFirst(1 + digits.count)
        }
        if rest.count == 1 { return rest.first.map { $0 | 0x20 } == UInt8(ascii: "z") }
        let offset = Array(rest)
        guard offset.count == 6, offset[0] == UInt8(ascii: "+") || offset[0] == UInt8(ascii: "-"),
            offset[3] == UInt8(ascii: ":"), let hours = number(offset, 1..<3), let minutes = number(offset, 4..<6)
        else { return false }
        return hours < 24 && minutes < 60
    }

    /// The decimal number the digits of `bytes[range]` spell, or `nil` when one is not a digit.
    private static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        var value = 0
        for byte in bytes[range] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
