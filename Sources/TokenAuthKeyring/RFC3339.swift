#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// RFC 3339 timestamps in UTC, with or without fractional seconds.
enum RFC3339 {
    // Made once: each format style sets up a Gregorian calendar.
    private static let whole = Date.ISO8601FormatStyle(includingFractionalSeconds: false, timeZone: .gmt)
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    static func format(_ date: Date) -> String {
        date.formatted(whole)
    }

    static func parse(_ text: String) -> Date? {
        if let date = try? whole.parse(text) { return date }
        return try? fractional.parse(text)
    }
}
