import Foundation
import Synchronization
import TokenAuth

/// A wall clock that stands still until the test moves it: give ``wallClock`` to whatever takes a ``WallClock``.
///
/// ```swift
/// let clock = ManualWallClock()
/// let manager = AuthManager(store: store, refresher: endpoint, wallClock: clock.wallClock)
/// clock.advance(by: 3600)   // the token has expired; no test ever sleeps for it
/// ```
///
/// It can also step forward by a fixed amount after every read, to tell apart the reads a client makes before
/// and after a request.
public final class ManualWallClock: Sendable {
    private struct State {
        var now: Date
        var step: TimeInterval
        var reads = 0
    }

    private let state: Mutex<State>

    /// A clock at `start` (``epoch`` by default) that moves `step` seconds forward after each read.
    public init(_ start: Date = ManualWallClock.epoch, advancingEachReadBy step: TimeInterval = 0) {
        state = Mutex(State(now: start, step: step))
    }

    /// A fixed, round date (2027-01-15 08:00:00 UTC), so that test output is the same in every run.
    public static let epoch = Date(timeIntervalSince1970: 1_800_000_000)

    /// The current time, without counting as a read.
    public var now: Date { state.withLock { $0.now } }

    /// How often the clock was read through ``read()`` or ``wallClock``.
    public var reads: Int { state.withLock { $0.reads } }

    /// Moves the clock forward by `seconds` (backward for a negative value, as a wall clock may).
    public func advance(by seconds: TimeInterval) {
        state.withLock { $0.now.addTimeInterval(seconds) }
    }

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        advance(by: TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }

    /// Reads the clock: the current time, then a step forward if one was configured.
    public func read() -> Date {
        state.withLock { state in
            let now = state.now
            state.reads += 1
            state.now.addTimeInterval(state.step)
            return now
        }
    }

    /// The clock as a ``WallClock`` closure.
    public var wallClock: WallClock { { self.read() } }
}
