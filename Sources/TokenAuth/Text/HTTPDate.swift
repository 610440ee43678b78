#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The three HTTP-date forms recipients must accept (RFC 9110 §5.6.7), read without Foundation's `DateFormatter`
/// (the core builds on FoundationEssentials, which has none):
///
/// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
/// - the obsolete RFC 850 form: `Sunday, 06-Nov-94 08:49:37 GMT`
/// - asctime: `Sun Nov  6 08:49:37 1994`
package enum HTTPDate {
    /// The date `text` names, or `nil` when it is none of the three forms or names no real day (`31 Feb`).
    ///
    /// - Parameter now: For the RFC 850 form's two-digit year: a year that would be more than 50 years after `now` is
    ///   read as the most recent past year with those digits (RFC 9110 §5.6.7).
    package static func parse(_ text: String, now: Date) -> Date? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        if words.count == 6, words[5] == "GMT", let weekday = words[0].dropLastIfComma, shortDays.contains(weekday),
            words[0].last == ",", let day = twoDigits(words[1]), let month = month(words[2]), let year = Int(words[3]),
            words[3].count == 4, let time = time(words[4])
        {
            return date(year: year, month: month, day: day, time: time)
        }
        if words.count == 4, words[3] == "GMT", let weekday = words[0].dropLastIfComma, longDays.contains(weekday),
            words[0].last == ",", case let parts = words[1].split(separator: "-", omittingEmptySubsequences: false),
            parts.count == 3, let day = twoDigits(parts[0]), let month = month(parts[1]), parts[2].count == 2,
            let shortYear = Int(parts[2]), let time = time(words[2])
        {
            return date(year: fullYear(shortYear, now: now), month: month, day: day, time: time)
        }
        if words.count == 5, shortDays.contains(String(words[0])), let month = month(words[1]),
            (1...2).contains(words[2].count), let day = Int(words[2]), let time = time(words[3]), words[4].count == 4,
            let year = Int(words[4])
        {
            return date(year: year, month: month, day: day, time: time)
        }
        return nil
    }

    private static let shortDays: Set<String> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays: Set<String> = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func month(_ name: Substring) -> Int? {
        months.firstIndex(of: String(name)).map { $0 + 1 }
    }

    private static func twoDigits(_ text: Substring) -> Int? {
        text.count == 2 && text.allSatisfy(\.isASCIIDigit) ? Int(text) : nil
    }

    /// `HH:mm:ss`.
    private static func time(_ text: Substring) -> (hour: Int, minute: Int, second: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let hour = twoDigits(parts[0]), let minute = twoDigits(parts[1]),
            let second = twoDigits(parts[2])
        else { return nil }
        return (hour, minute, second)
    }

    private static func fullYear(_ twoDigits: Int, now: Date) -> Int {
        let currentYear = 1970 + Int((now.timeIntervalSince1970 / 31_556_952).rounded(.down))
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 }
        return year
    }

    private static func date(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int)) -> Date? {
        CivilTime.date(year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second)
    }
}

extension Substring {
    /// The word without its trailing comma, when it has one.
    fileprivate var dropLastIfComma: String? {
        last == "," ? String(dropLast()) : nil
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
