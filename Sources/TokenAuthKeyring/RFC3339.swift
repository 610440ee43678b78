#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenAuth

/// RFC 3339 timestamps in UTC, with or without fractional seconds.
enum RFC3339 {
    // Made once: each format style sets up a Gregorian calendar.
    private static let whole = Date.ISO8601FormatStyle(includingFractionalSeconds: false, timeZone: .gmt)
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    static func format(_ date: Date) -> String {
        date.formatted(whole)
    }

    static func parse(_ text: String) -> Date? {
        if let date = canonical(text) { return date }
        if let date = try? whole.parse(text) { return date }
        return try? fractional.parse(text)
    }

    /// The form ``format(_:)`` writes, `2030-01-02T03:04:05Z`, from the year 1583 on, read by arithmetic; `nil` for
    /// any other text, which the format styles read. Every stored bundle's dates are in this form, and `tokenctl token` reads one at each
    /// start: setting up the format style's calendar for it was about a tenth of that command's own time.
    static func canonical(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        // From 1583 only: before the Gregorian reform of October 1582 the format styles' calendar counts Julian days.
        guard let year = number(0..<4), year >= 1583, let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        return CivilTime.date(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }
}
