import Synchronization

/// Resumes a waiting task exactly once, with whichever result comes first — the call's, its timeout's or its
/// cancellation's — also when that result comes before the task has installed its continuation.
final class ResumeOnce<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T, any Error>?, early: Result<T, any Error>?, done: Bool)>(
        (nil, nil, false))

    /// Whether a result has been given.
    var isDone: Bool { state.withLock { $0.done } }

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = state.withLock { state in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Gives `result` to the task, unless another result came first.
    /// - Returns: `false` when another result came first and `result` was dropped.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (won, continuation): (Bool, CheckedContinuation<T, any Error>?) = state.withLock { state in
            guard !state.done else { return (false, nil) }
            state.done = true
            guard let continuation = state.continuation else {
                state.early = result
                return (true, nil)
            }
            state.continuation = nil
            return (true, continuation)
        }
        continuation?.resume(with: result)
        return won
    }
}
