#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import Synchronization

/// A request submitted through the callback API of ``AuthorizedClient``; cancel it with ``cancel()``.
///
/// Its completion handler runs exactly once: with the result, or with `CancellationError` after a cancellation
/// that came before the result.
public final class CallbackRequest: Sendable {
    /// What the completion handler receives.
    public typealias Result = Swift.Result<(HTTPResponse, Data), any Error>

    private enum Phase {
        /// Waiting in the submission queue.
        case queued
        /// Leaving the queue: its task is being created.
        case starting
        /// Being sent by `task`.
        case running(Task<Void, Never>)
        /// The completion handler was called (or is about to be).
        case finished
    }

    private struct State {
        var phase = Phase.queued
        var cancelled = false
    }

    private let state = Mutex(State())
    private let deliver: @Sendable (Result) -> Void

    /// - Parameter deliver: Calls the completion handler on its queue.
    init(deliver: @escaping @Sendable (Result) -> Void) {
        self.deliver = deliver
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Cancels the request. A request still waiting in the queue is not sent and completes with
    /// `CancellationError` at once; one being sent is stopped. A refresh it was waiting for goes on for the others.
    /// Calling it after completion does nothing.
    public func cancel() {
        enum Action { case none, cancel(Task<Void, Never>), complete }
        let action = state.withLock { state -> Action in
            state.cancelled = true
            switch state.phase {
            case .queued:
                state.phase = .finished
                return .complete
            case .running(let task):
                return .cancel(task)
            case .starting, .finished:
                // `start` cancels the task once it exists.
                return .none
            }
        }
        switch action {
        case .none: break
        case .cancel(let task): task.cancel()
        case .complete: deliver(.failure(CancellationError()))
        }
    }

    /// Whether the request still waits in the queue, neither cancelled nor started.
    var isQueued: Bool {
        state.withLock { if case .queued = $0.phase { true } else { false } }
    }

    /// Starts the request with the task `makeTask` creates, unless it was cancelled while queued.
    func start(_ makeTask: () -> Task<Void, Never>) {
        let proceed = state.withLock { state -> Bool in
            guard case .queued = state.phase else { return false }
            state.phase = .starting
            return true
        }
        guard proceed else { return }
        let task = makeTask()
        let cancelled = state.withLock { state -> Bool in
            if case .starting = state.phase { state.phase = .running(task) }
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    /// Delivers `result`, unless a result (or the cancellation) was delivered already.
    func finish(_ result: Result) {
        let first = state.withLock { state -> Bool in
            if case .finished = state.phase { return false }
            state.phase = .finished
            return true
        }
        if first { deliver(result) }
    }
}
