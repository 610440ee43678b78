import Synchronization

/// Mutual exclusion per key for async code: callers with the same key run one at a time, in arrival order;
/// callers with different keys do not wait for each other. Waiting does not block a thread, and it is bounded
/// like a D-Bus call: a waiter leaves the queue at once when its task is cancelled (`CancellationError`), or
/// when it is still queued after its timeout (``KeyringError/Code/timedOut``).
///
/// Each waiter has an id and is resumed exactly once, by whoever takes it out of the queue under the mutex:
/// ``release(_:)``, which hands it the lock, or its cancellation or timeout, which make it leave. A waiter
/// that left is no longer in the queue, so the lock is never handed to it; one handed the lock is no longer
/// in the queue, so a late cancellation or timeout finds nothing to do.
final class KeyedAsyncLock: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
        let timeout: Timeout
    }

    private struct State {
        /// The held keys, each with the waiters queued behind its holder, oldest first. A key absent is free.
        var held: [String: [Waiter]] = [:]
        var lastID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Runs `body` holding the lock of `key`, after waiting at most `timeout` for it.
    /// - Throws: `CancellationError` when the task is cancelled while waiting; ``KeyringError/Code/timedOut``
    ///   when another holder of `key` kept it longer than `timeout`. `body` has not run then.
    func withLock<T: Sendable>(_ key: String, timeout: Duration, _ body: () async throws -> T) async throws -> T {
        try await acquire(key, timeout: timeout)
        defer { release(key) }
        return try await body()
    }

    /// How many callers are queued for `key`, behind its holder.
    func queued(_ key: String) -> Int {
        state.withLock { $0.held[key]?.count ?? 0 }
    }

    private func acquire(_ key: String, timeout: Duration) async throws {
        let id = state.withLock { state in
            state.lastID += 1
            return state.lastID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now: Result<Void, any Error>? = state.withLock { state in
                    // The task is marked cancelled before its cancellation handler runs; checked under the mutex
                    // that `leave` takes, so a cancellation either finds this waiter queued or is seen here.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    guard state.held[key] != nil else {
                        state.held[key] = []
                        return .success(())
                    }
                    // Started under the mutex: a timer that fires at once waits for the waiter to be queued.
                    let timer = Timeout(after: timeout) { [self] in
                        leave(key, id, KeyringError.writeStillRunning(after: timeout))
                    }
                    state.held[key]!.append(Waiter(id: id, continuation: continuation, timeout: timer))
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            leave(key, id, CancellationError())
        }
    }

    /// Takes waiter `id` out of the queue of `key` and resumes it with `error`; nothing when it is not queued
    /// (it holds the lock, or left already).
    private func leave(_ key: String, _ id: UInt64, _ error: any Error) {
        let waiter: Waiter? = state.withLock { state in
            guard let index = state.held[key]?.firstIndex(where: { $0.id == id }) else { return nil }
            return state.held[key]!.remove(at: index)
        }
        guard let waiter else { return }
        waiter.timeout.cancel()
        waiter.continuation.resume(throwing: error)
    }

    /// Hands the lock of `key` to its oldest waiter, or frees it when none is queued.
    private func release(_ key: String) {
        let next: Waiter? = state.withLock { state in
            guard state.held[key]?.isEmpty == false else {
                state.held[key] = nil
                return nil
            }
            return state.held[key]!.removeFirst()
        }
        guard let next else { return }
        next.timeout.cancel()
        next.continuation.resume()
    }
}
