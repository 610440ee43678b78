import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// One request of ``URLSessionTransport`` in flight: collects what its URLSession task delivers, enforces the
/// body-size limit while the body arrives, and ends the caller's wait exactly once — with what the task delivered,
/// or with `CancellationError` as soon as the caller is cancelled.
///
/// This replaces FoundationNetworking's async `URLSession.data(for:delegate:)`, which can deadlock: Swift runs a
/// task's cancellation handlers while holding that task's status-record lock, and resuming a continuation of the
/// task needs the same lock. The handler of `data(for:delegate:)` calls `URLSessionTask.cancel()`, which (up to
/// Swift 6.3) waits synchronously for the session's queue — while that queue may be resuming the continuation,
/// waiting for the lock (swiftlang/swift-corelibs-foundation#5412). Seen here as a hung test run. So the
/// handler of a transfer, ``abandon()``, only hands the work to another thread and returns; nothing in the
/// cancellation handler waits for anything.
///
/// The delegate methods are called by ``SessionDelegate``, which routes each task's events to its transfer, on
/// the session's delegate queue (one at a time, in order).
final class Transfer: Sendable {
    /// What the task delivered when it completed.
    struct Completion: Sendable {
        /// The response head, if one arrived.
        var response: URLResponse?
        /// The body received; empty when it passed the limit.
        var body: Data
        /// The error the task completed with, if any.
        var error: (any Error)?
        /// Whether the body passed the limit and the task was cancelled for it.
        var exceeded: Bool
    }

    private enum Phase {
        /// Created; no task yet.
        case ready
        /// Waiting for `task`.
        case running(URLSessionTask, CheckedContinuation<Completion, any Error>)
        /// Abandoned by a cancelled caller, or completed: nothing more is delivered.
        case over
    }

    private struct State {
        var phase = Phase.ready
        var abandoned = false
        var response: URLResponse?
        var body = Data()
        var exceeded = false
    }

    /// The largest response body accepted, in bytes.
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Sends `request` through `session` and returns what its task delivered.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled, at once, without waiting for the task.
    func run(_ request: URLRequest, on session: URLSession, routedBy delegate: SessionDelegate) async throws -> Completion {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request)
                delegate.route(task, to: self)
                let started = state.withLock { state in
                    guard !state.abandoned else { return false }
                    state.phase = .running(task, continuation)
                    return true
                }
                guard started else {
                    delegate.forget(task)
                    return continuation.resume(throwing: CancellationError())
                }
                // Cancelled from here on, the task is cancelled before it resumes, and `resume()` then sends nothing.
                task.resume()
            }
        } onCancel: {
            abandon()
        }
    }

    /// Ends the caller's wait with `CancellationError` and cancels the task, on another thread: this is called
    /// from a cancellation handler, where waiting for anything may deadlock (see the type's documentation).
    private func abandon() {
        DispatchQueue.global().async { [self] in
            let running = state.withLock { state -> (URLSessionTask, CheckedContinuation<Completion, any Error>)? in
                state.abandoned = true
                guard case .running(let task, let continuation) = state.phase else { return nil }
                state.phase = .over
                return (task, continuation)
            }
            guard let (task, continuation) = running else { return }
            continuation.resume(throwing: CancellationError())
            task.cancel()
        }
    }

    /// The response head arrived. Returns whether the task may go on: not when the announced `Content-Length`
    /// passes the limit, so an oversized body is never read.
    func received(_ response: URLResponse) -> Bool {
        let tooLarge = response.expectedContentLength > Int64(limit)
        state.withLock { state in
            state.response = response
            state.body = Data()
            state.exceeded = tooLarge
        }
        return !tooLarge
    }

    /// Part of the body arrived. Returns whether the task may go on: not once the bytes received pass the limit.
    func received(_ data: Data) -> Bool {
        state.withLock { state in
            guard !state.exceeded else { return false }
            guard state.body.count + data.count <= limit else {
                state.exceeded = true
                state.body = Data()
                return false
            }
            state.body.append(data)
            return true
        }
    }

    /// The task completed: hands what it delivered to the caller, unless the caller is gone.
    func completed(with error: (any Error)?) {
        let ending = state.withLock { state -> (CheckedContinuation<Completion, any Error>, Completion)? in
            guard case .running(_, let continuation) = state.phase else { return nil }
            state.phase = .over
            return (continuation, Completion(response: state.response, body: state.body, error: error, exceeded: state.exceeded))
        }
        guard let (continuation, completion) = ending else { return }
        continuation.resume(returning: completion)
    }
}
