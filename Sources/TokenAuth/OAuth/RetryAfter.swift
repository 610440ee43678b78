import Foundation

/// Parsing of the `Retry-After` header (RFC 9110 §10.2.3): a number of seconds or an HTTP-date.
enum RetryAfter {
    /// How long the server asked to wait, measured from `now`, within 0…``TokenAuthError/maximumRetryAfter``.
    ///
    /// A date in the past gives zero; a longer wait, or a number of seconds too long to count, gives the maximum.
    /// Returns `nil` for a missing or unparseable value, so a bad header never becomes a guess.
    static func parse(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        let maximum = TokenAuthError.maximumRetryAfter
        if value.allSatisfy(\.isASCIIDigit) {
            // Every digit string is a valid delay-seconds (RFC 9110 §10.2.3); one beyond Int64 is simply long.
            guard let seconds = Int64(value) else { return maximum }
            return min(.seconds(seconds), maximum)
        }
        guard let date = httpDate(value) else { return nil }
        let interval = date.timeIntervalSince(now)
        guard interval > 0 else { return .zero }
        guard interval < maximum.timeInterval else { return maximum }
        return .seconds(interval.rounded(.up))
    }

    /// Parses the three HTTP-date forms recipients must accept (RFC 9110 §5.6.7): IMF-fixdate, the obsolete
    /// RFC 850 form and asctime.
    static func httpDate(_ value: String) -> Date? {
        // An HTTP-date is visible ASCII and spaces. Anything else never reaches DateFormatter, which traps on
        // some non-ASCII text (`S` + U+05B1; found by Fuzz/Targets/retry-after.swift).
        guard value.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: value) {
                return date
            }
        }
        return nil
    }

    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss 'GMT'",
        "EEEE, dd-MMM-yy HH:mm:ss 'GMT'",
        "EEE MMM d HH:mm:ss yyyy",
    ]
}

extension Character {
    fileprivate var isASCIIDigit: Bool {
        isASCII && isNumber
    }
}
