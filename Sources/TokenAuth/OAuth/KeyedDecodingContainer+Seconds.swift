#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension KeyedDecodingContainer {
    /// A number of seconds from a JSON number or a numeric string, as OAuth servers send either (`expires_in`,
    /// `interval`); `nil` when absent, of another type, or not a finite number.
    package func lenientSeconds(forKey key: Key) -> Double? {
        var seconds: Double?
        if let number = try? decodeIfPresent(Double.self, forKey: key) {
            seconds = number
        } else if let text = try? decodeIfPresent(String.self, forKey: key) {
            seconds = Double(text.trimmingSpaces)
        }
        guard let seconds, seconds.isFinite else { return nil }
        return seconds
    }

    /// ``lenientSeconds(forKey:)`` when positive, as a duration clamped to `bounds`; `nil` when absent, of another
    /// type, not a finite number, zero or negative, or too small to be a positive `Duration` (under an attosecond,
    /// with bounds from zero). The comparison happens before any conversion, so no number can overflow it.
    package func positiveSeconds(forKey key: Key, within bounds: ClosedRange<Duration>) -> Duration? {
        guard let seconds = lenientSeconds(forKey: key), seconds > 0 else { return nil }
        if seconds <= bounds.lowerBound.timeInterval { return bounds.lowerBound }
        if seconds >= bounds.upperBound.timeInterval { return bounds.upperBound }
        // A positive number under an attosecond (`1e-95`) is zero as a Duration: not positive after all.
        let duration = Duration.seconds(seconds)
        return duration > .zero ? duration : nil
    }
}
