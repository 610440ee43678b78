import Synchronization

/// Holds callers until the test lets them through: how the doubles of this module hold their answers.
///
/// ```swift
/// let gate = endpoint.gate                    // a ScriptedTokenEndpoint's, say
/// gate.close()
/// async let answer = endpoint.refresh(refreshToken: "refresh-0", scope: nil)  // arrives at the gate, waits there
/// await gate.waitUntilArrivals(1)             // no sleeping, no timing
/// gate.open()                                 // now it answers
/// _ = try await answer
/// ```
///
/// A waiter whose task is cancelled leaves at once with `CancellationError`. Nothing here sleeps or gives up
/// on its own: bound a test with Swift Testing's `.timeLimit` instead.
public final class Gate: Sendable {
    private struct State {
        var isOpen: Bool
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiter = 0
        /// How many callers ever arrived at the gate.
        var arrivals = 0
        var arrivalWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    /// Creates a gate, open (callers pass at once) unless `isOpen` is `false`.
    public init(isOpen: Bool = true) {
        state = Mutex(State(isOpen: isOpen))
    }

    /// Whether callers pass at once.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// How many callers are waiting at the gate now.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// How many callers ever arrived at the gate, open or closed.
    public var arrivals: Int { state.withLock { $0.arrivals } }

    /// Makes later callers wait.
    public func close() {
        state.withLock { $0.isOpen = false }
    }

    /// Lets every waiting caller through, and later ones at once.
    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until the gate is open; returns at once if it is.
    /// - Throws: `CancellationError` when the calling task is cancelled while waiting.
    public func pass() async throws {
        let (id, watchers) = state.withLock { state -> (Int, [CheckedContinuation<Void, Never>]) in
            state.arrivals += 1
            defer { state.nextWaiter += 1 }
            return (state.nextWaiter, Self.takeReached(&state))
        }
        for watcher in watchers { watcher.resume() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.isOpen { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Returns once `count` callers in all have arrived at the gate (waiting or passed).
    public func waitUntilArrivals(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state -> Bool in
                if state.arrivals >= count { return true }
                state.arrivalWatchers.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    private static func takeReached(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let arrivals = state.arrivals
        let reached = state.arrivalWatchers.filter { $0.count <= arrivals }.map(\.continuation)
        state.arrivalWatchers.removeAll { $0.count <= arrivals }
        return reached
    }
}
