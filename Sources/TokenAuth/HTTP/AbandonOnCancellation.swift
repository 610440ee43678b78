import Synchronization

/// Runs `operation` in a task of its own and returns its result, or throws `CancellationError` as soon as the
/// calling task is cancelled, without waiting for `operation` to notice. The operation is cancelled as well;
/// whatever it returns later is dropped.
///
/// For work whose own cancellation is not prompt: FoundationNetworking's `URLSession.data(for:delegate:)` can
/// keep a cancelled transfer open until the server answers.
func abandoningOnCancellation<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let race = AbandonableRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            race.install(continuation)
            race.attach(Task {
                do {
                    race.finish(.success(try await operation()))
                } catch {
                    race.finish(.failure(error))
                }
            })
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
        race.cancelWorker()
    }
}

/// The first of the operation's result and the caller's cancellation resumes the caller, exactly once.
private final class AbandonableRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
        var resumed = false
        var worker: Task<Void, Never>?
        var workerCancelled = false
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let ready: Result<T, any Error>? = state.withLock { state in
            guard let result = state.result else {
                state.continuation = continuation
                return nil
            }
            state.resumed = true
            return result
        }
        if let ready { continuation.resume(with: ready) }
    }

    func finish(_ result: Result<T, any Error>) {
        let waiting: CheckedContinuation<T, any Error>? = state.withLock { state in
            guard state.result == nil, !state.resumed else { return nil }
            state.result = result
            guard let continuation = state.continuation else { return nil }
            state.continuation = nil
            state.resumed = true
            return continuation
        }
        waiting?.resume(with: result)
    }

    func attach(_ worker: Task<Void, Never>) {
        let cancelNow = state.withLock { state in
            state.worker = worker
            return state.workerCancelled
        }
        if cancelNow { worker.cancel() }
    }

    func cancelWorker() {
        let worker = state.withLock { state in
            state.workerCancelled = true
            return state.worker
        }
        worker?.cancel()
    }
}
