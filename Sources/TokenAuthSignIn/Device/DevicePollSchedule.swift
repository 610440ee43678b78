import TokenAuth
/// When a device authorization client polls the token endpoint next (RFC 8628 §3.5), as a value.
///
/// Invariants:
/// - ``interval`` starts at the server's `interval`, or 5 s when it sent none (or a non-positive one), and only
///   grows: each `slow_down` adds 5 s to it for the rest of the flow, or sets it to the interval the answer names
///   when that is longer (GitHub names one). It stays within
///   ``DeviceAuthorization/minimumInterval``…``DeviceAuthorization/maximumInterval``.
/// - After a transient failure (no answer, 5xx) the wait doubles for each failure in a row, up to 64 times the
///   interval (RFC 8628 §3.5 asks for exponential backoff); any answer from the server ends the run of failures.
/// - No poll is scheduled at or after ``lifetime``, counted from when the device code was requested: the client
///   gives up at `expires_in` instead of polling with an expired code.
struct DevicePollSchedule: Sendable, Equatable {
    /// What the last poll got.
    enum Outcome: Sendable, Equatable {
        /// `authorization_pending`: the user has not decided yet.
        case pending
        /// `slow_down`: poll less often, from now on; `interval` is the new interval the answer named, if any (GitHub
        /// names one).
        case slowDown(interval: Duration?)
        /// No usable answer: the network, a timeout, a 5xx.
        case transientFailure
    }

    /// The interval when the server names none (RFC 8628 §3.2).
    static let defaultInterval = Duration.seconds(5)
    /// What each `slow_down` adds to the interval (RFC 8628 §3.5).
    static let slowDownIncrement = Duration.seconds(5)

    /// The wait between polls while the server answers.
    private(set) var interval: Duration
    /// How long the device code lives (`expires_in`).
    let lifetime: Duration
    /// Transient failures in a row since the last answer.
    private(set) var consecutiveFailures = 0

    /// - Parameters:
    ///   - interval: The server's `interval`, or `nil` when it sent none.
    ///   - lifetime: The server's `expires_in`.
    init(interval: Duration?, lifetime: Duration) {
        if let interval, interval > .zero {
            self.interval = min(max(interval, DeviceAuthorization.minimumInterval), DeviceAuthorization.maximumInterval)
        } else {
            self.interval = Self.defaultInterval
        }
        self.lifetime = lifetime
    }

    /// Takes the outcome of a poll into account.
    mutating func record(_ outcome: Outcome) {
        switch outcome {
        case .pending:
            consecutiveFailures = 0
        case .slowDown(let named):
            consecutiveFailures = 0
            interval = min(max(interval + Self.slowDownIncrement, named ?? .zero), DeviceAuthorization.maximumInterval)
        case .transientFailure:
            consecutiveFailures += 1
        }
    }

    /// How long to wait before the next poll, `elapsed` after the device code was requested; `nil` when that poll
    /// would come at or after the code's expiry.
    func nextWait(elapsed: Duration) -> Duration? {
        let wait = interval * (1 << min(consecutiveFailures, 6))
        guard elapsed + wait < lifetime else { return nil }
        return wait
    }
}
