import Synchronization

/// A `Clock` whose time moves only when the test says, and which records every sleep: give it to whatever takes an
/// `any Clock<Duration>`.
///
/// ```swift
/// let clock = ManualClock()
/// let device = DeviceAuthorization(
///     client: oauthClient, deviceAuthorizationEndpoint: url, transport: transport, clock: clock)
/// async let credentials = device.signIn { _ in }   // sleeps on `clock` between polls
/// await clock.waitUntilSleeps(1)                     // no real waiting
/// clock.advance(by: .seconds(5))                     // the sleeper wakes, and polls again
/// _ = try await credentials
/// ```
///
/// With `advancingOnSleep: true` a sleep does not wait at all: it moves the clock to its deadline and returns,
/// so a polling loop runs to its end at once while ``sleeps`` records how it spaced its waits.
///
/// A sleeper whose task is cancelled wakes at once with `CancellationError`. Nothing here sleeps in real time.
public final class ManualClock: Clock, Sendable {
    /// A point on a ``ManualClock``: the time since the clock was created.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// Time since the clock's start.
        public var offset: Duration

        /// Creates an instant `offset` after the clock's start.
        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var nextSleeper = 0
        var sleeps: [Duration] = []
        var sleepWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    private let advancesOnSleep: Bool

    /// Creates a clock at offset zero.
    ///
    /// - Parameter advancingOnSleep: Whether a sleep moves the clock to its deadline and returns at once, instead
    ///   of waiting for ``advance(by:)``.
    public init(advancingOnSleep: Bool = false) {
        self.advancesOnSleep = advancingOnSleep
    }

    /// The current instant.
    public var now: Instant { state.withLock { $0.now } }

    /// The clock's resolution: any duration.
    public var minimumResolution: Duration { .zero }

    /// Every sleep asked for so far, oldest first, as the duration from the then current time to its deadline.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// How many sleepers are waiting now.
    public var sleeping: Int { state.withLock { $0.sleepers.count } }

    /// Sleeps until `deadline`: at once when it has passed (or with `advancingOnSleep`), otherwise until
    /// ``advance(by:)`` reaches it.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> Int in
            defer { state.nextSleeper += 1 }
            return state.nextSleeper
        }
        let watchers = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.sleeps.append(state.now.duration(to: deadline))
            if advancesOnSleep, deadline > state.now { state.now = deadline }
            return Self.takeReached(&state)
        }
        for watcher in watchers { watcher.resume() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if deadline <= state.now { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes every sleeper whose deadline it reaches.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns once `count` sleeps in all have been asked for (waiting or finished).
    public func waitUntilSleeps(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state -> Bool in
                if state.sleeps.count >= count { return true }
                state.sleepWatchers.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    private static func takeReached(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleeps.count
        let reached = state.sleepWatchers.filter { $0.count <= count }.map(\.continuation)
        state.sleepWatchers.removeAll { $0.count <= count }
        return reached
    }
}
