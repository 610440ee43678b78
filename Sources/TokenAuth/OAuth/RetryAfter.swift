#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Parsing of the `Retry-After` header (RFC 9110 §10.2.3): a number of seconds or an HTTP-date.
enum RetryAfter {
    /// How long the server asked to wait, measured from `now`, within 0…``TokenAuthError/maximumRetryAfter``.
    ///
    /// A date in the past gives zero; a longer wait, or a number of seconds too long to count, gives the maximum.
    /// Returns `nil` for a missing or unparseable value, so a bad header never becomes a guess.
    static func parse(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingSpaces, !value.isEmpty else { return nil }
        let maximum = TokenAuthError.maximumRetryAfter
        if value.allSatisfy(\.isASCIIDigit) {
            // Every digit string is a valid delay-seconds (RFC 9110 §10.2.3); one beyond Int64 is simply long.
            guard let seconds = Int64(value) else { return maximum }
            return min(.seconds(seconds), maximum)
        }
        guard let date = HTTPDate.parse(value, now: now) else { return nil }
        let interval = date.timeIntervalSince(now)
        guard interval > 0 else { return .zero }
        guard interval < maximum.timeInterval else { return maximum }
        return .seconds(interval.rounded(.up))
    }
}
