#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When ``AuthManager`` may ask the token endpoint again: the excessive-refresh window, and the backoff after
/// transient failures (exponential, with jitter, never shorter than the server's `Retry-After`).
///
/// A value with no clock of its own: every decision takes the time as an argument, so its rules are tested with
/// plain dates.
///
/// Invariants:
/// - `consecutiveFailures == 0` exactly when `notBefore` and `lastFailure` are `nil`: a success clears all three.
/// - `recentStarts` holds the start times of admitted refreshes, oldest first, none older than ``window`` as of
///   the last ``admit(at:)``, and at most ``limit`` of them.
struct RefreshThrottle: Sendable {
    /// At most this many refreshes per ``window``.
    let limit: Int
    /// The window of ``limit``.
    let window: Duration
    /// The waits after transient failures.
    let backoff: Backoff

    private(set) var recentStarts: [Date] = []
    private(set) var consecutiveFailures = 0
    /// Before this time, the endpoint is not asked again.
    private(set) var notBefore: Date?
    /// The transient failure that set ``notBefore``.
    private(set) var lastFailure: TokenAuthError?

    init(limit: Int, window: Duration, backoff: Backoff) {
        self.limit = limit
        self.window = window
        self.backoff = backoff
    }

    /// The error to throw instead of asking the endpoint at `now`, while backing off; `nil` when it may be asked.
    func backingOff(at now: Date) -> TokenAuthError? {
        guard let notBefore, now < notBefore, let lastFailure else { return nil }
        return .backingOff(after: lastFailure, retryAfter: .seconds(notBefore.timeIntervalSince(now)))
    }

    /// Records a refresh starting at `now`, unless ``limit`` refreshes already started within ``window``.
    /// - Returns: whether the refresh may go ahead.
    mutating func admit(at now: Date) -> Bool {
        let windowStart = now.addingTimeInterval(-window.timeInterval)
        recentStarts.removeAll { $0 <= windowStart }
        guard recentStarts.count < limit else { return false }
        recentStarts.append(now)
        return true
    }

    /// Records a transient failure at `now` and returns how long to leave the endpoint alone.
    /// - Parameters:
    ///   - retryAfter: the server's `Retry-After`, which wins when longer than the backoff.
    ///   - random: draws the jitter.
    ///   - error: the error for this delay, remembered to explain the waits that follow.
    mutating func recordFailure(
        at now: Date,
        retryAfter: Duration?,
        random: (ClosedRange<Double>) -> Double,
        error: (Duration) -> TokenAuthError
    ) -> TokenAuthError {
        consecutiveFailures += 1
        let delay = backoff.delay(afterFailures: consecutiveFailures, retryAfter: retryAfter, random: random)
        notBefore = now.addingTimeInterval(delay.timeInterval)
        let failure = error(delay)
        lastFailure = failure
        return failure
    }

    /// Forgets past failures, after a success or when new credentials arrive.
    mutating func reset() {
        consecutiveFailures = 0
        notBefore = nil
        lastFailure = nil
    }
}
