import Synchronization

/// Mutual exclusion per key for async code: callers with the same key run one at a time, in arrival order;
/// callers with different keys do not wait for each other. Waiting does not block a thread.
final class KeyedAsyncLock: Sendable {
    private struct Waiters {
        var busy = false
        var queue: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex<[String: Waiters]>([:])

    func withLock<T: Sendable>(_ key: String, _ body: () async throws -> T) async throws -> T {
        await acquire(key)
        defer { release(key) }
        return try await body()
    }

    private func acquire(_ key: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { table -> Bool in
                var waiters = table[key, default: Waiters()]
                defer { table[key] = waiters }
                if waiters.busy {
                    waiters.queue.append(continuation)
                    return false
                }
                waiters.busy = true
                return true
            }
            if acquired { continuation.resume() }
        }
    }

    private func release(_ key: String) {
        let next = state.withLock { table -> CheckedContinuation<Void, Never>? in
            guard var waiters = table[key] else { return nil }
            if waiters.queue.isEmpty {
                table[key] = nil
                return nil
            }
            let next = waiters.queue.removeFirst()
            table[key] = waiters
            return next
        }
        next?.resume()
    }
}
