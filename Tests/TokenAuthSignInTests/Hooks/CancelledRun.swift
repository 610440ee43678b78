import Synchronization
import TokenAuthTesting

/// Runs `body` in a task that is cancelled before `body` begins, as when the user gives up just before the sign-in
/// gets going, and returns how it ended.
func runCancelled<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async -> Result<T, any Error> {
    let started = Gate()
    let task = Task {
        await started.waitUntilArrivals(1)  // not a cancellation point: the task gets here, then is cancelled
        return try await body()
    }
    task.cancel()
    try? await started.pass()
    return await task.result
}

/// A sign-in running in a task of its own, whose end a test waits for within a bound: a sign-in that does not end
/// fails the test instead of hanging it.
final class RunningSignIn<Success: Sendable>: Sendable {
    /// How it ended, kept apart from the task that writes it.
    private final class Ending: Sendable {
        let result = Mutex<Result<Success, any Error>?>(nil)
    }

    private let ending = Ending()
    private let task: Task<Void, Never>

    init(_ operation: @escaping @Sendable () async throws -> Success) {
        let ending = ending
        task = Task {
            let result: Result<Success, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            ending.result.withLock { $0 = result }
        }
    }

    /// How it ended, once it has.
    var outcome: Result<Success, any Error>? { ending.result.withLock { $0 } }

    /// Cancels the sign-in's task.
    func cancel() {
        task.cancel()
    }
}

/// Counts what a hook was asked to do.
final class HookRuns<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    var count: Int { values.withLock { $0.count } }
    func record(_ value: Value) { values.withLock { $0.append(value) } }
}
