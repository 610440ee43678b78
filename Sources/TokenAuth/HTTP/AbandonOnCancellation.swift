import Dispatch

/// Runs `operation` in a task of its own and returns its result, or throws `CancellationError` as soon as the
/// calling task is cancelled, without waiting for `operation`. The operation's task is *not* cancelled: it runs to
/// its end and its result is dropped. `onAbandon` is called instead, on another thread, to stop it by other means.
///
/// For work whose own cancellation is not prompt, or not safe: FoundationNetworking's async
/// `URLSession.data(for:delegate:)` can keep a cancelled transfer open until the server answers, and (up to Swift
/// 6.3) it can deadlock when its task is cancelled as the response arrives. Swift holds a task's status-record lock
/// while it runs the task's cancellation handler; the handler of `data(for:delegate:)` waits synchronously for the
/// session's queue (`URLSessionTask.cancel()`), and that queue may be resuming the same task, which needs the lock
/// (swiftlang/swift-corelibs-foundation#5412; it hung a test run here). A task nobody cancels never runs that
/// handler, and this function's own handler only hands `onAbandon` to another thread: nothing waits while a lock
/// is held.
package func abandoningOnCancellation<T: Sendable>(
    onAbandon: @escaping @Sendable () -> Void = {},
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let flight = Flight<T>()
    Task {
        do {
            flight.finish(.success(try await operation()))
        } catch {
            flight.finish(.failure(error))
        }
    }
    // Flight.wait() stops waiting by itself when the caller is cancelled.
    return try await withTaskCancellationHandler {
        try await flight.wait()
    } onCancel: {
        DispatchQueue.global().async(execute: onAbandon)
    }
}
