import Synchronization

/// One result, of work running in a task of its own, that any number of callers wait for.
///
/// A waiter that is cancelled stops waiting at once (it gets `CancellationError`) while the work goes on for the
/// others: a refresh shared by every caller that needs it, or a transfer its caller abandons.
final class Flight<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiters: [Int: CheckedContinuation<Value, any Error>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Waits for the result; returns early with `CancellationError` if the calling task is cancelled.
    func wait() async throws -> Value {
        let waiter = state.withLock { state -> Int in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[waiter] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let continuation = state.withLock { $0.waiters.removeValue(forKey: waiter) }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Hands `result` to every waiter, present and future.
    func finish(_ result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            state.result = result
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
