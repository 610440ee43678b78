#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How long to leave the token endpoint alone after transient failures: exponential, capped, with jitter,
/// so that a fleet of clients does not hammer a struggling server in lockstep.
public struct Backoff: Sendable, Equatable {
    /// The wait after the first failure.
    public var initial: Duration
    /// The longest wait.
    public var maximum: Duration
    /// Whether each wait is drawn at random from its upper half, [d/2, d].
    public var jitter: Bool

    /// Creates a policy. The default waits 1 s, 2 s, 4 s… up to 5 minutes, with jitter.
    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(300), jitter: Bool = true) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The wait after `failures` consecutive failures (1 or more). A server's `Retry-After` wins when longer.
    func delay(afterFailures failures: Int, retryAfter: Duration?, random: (ClosedRange<Double>) -> Double) -> Duration {
        let exponent = min(max(failures - 1, 0), 30)
        var delay = min(initial * (1 << exponent), maximum)
        if jitter { delay = delay * random(0.5...1.0) }
        if let retryAfter, retryAfter > delay { delay = retryAfter }
        return delay
    }
}
