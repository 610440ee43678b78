// Built with the package trait OpenCombine (see Package.swift): without it this module is empty, and an app
// that does not ask for it resolves no OpenCombine.
#if OpenCombine
import Foundation
@preconcurrency import OpenCombine

/// A publisher that runs an async operation once per subscription, when the subscriber first asks for a value,
/// and publishes its one result.
///
/// Cancelling the subscription cancels the operation's task. The value and the completion arrive on the task's
/// thread: use `receive(on:)` to move them.
struct AsyncOperationPublisher<Output: Sendable>: Publisher {
    typealias Failure = any Error

    let operation: @Sendable () async throws -> Output

    func receive<Downstream: Subscriber>(subscriber: Downstream)
    where Downstream.Input == Output, Downstream.Failure == any Error {
        subscriber.receive(subscription: AsyncOperationSubscription(AnySubscriber(subscriber), operation: operation))
    }
}

/// The subscription of ``AsyncOperationPublisher``.
///
/// `@unchecked Sendable` because it holds a subscriber, which Combine does not require to be `Sendable`. It is
/// safe because every stored property that changes (`downstream`, `task`, `started`) is read and written only while
/// `lock` is held, and the subscriber is used only after it has been taken out of `downstream` under the lock —
/// so at most one thread ever calls it, once: the task delivering the result, or nobody after `cancel()`.
///
/// The subscriber is type-erased so that the subscription is generic over the `Sendable` output alone.
final class AsyncOperationSubscription<Output: Sendable>: Subscription, @unchecked Sendable {
    private typealias Downstream = AnySubscriber<Output, any Error>

    private let lock = NSLock()
    private var downstream: Downstream?
    private var task: Task<Void, Never>?
    private var started = false
    private let operation: @Sendable () async throws -> Output

    init(_ downstream: AnySubscriber<Output, any Error>, operation: @escaping @Sendable () async throws -> Output) {
        self.downstream = downstream
        self.operation = operation
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        let start = lock.withLock {
            guard !started, downstream != nil else { return false }
            started = true
            return true
        }
        guard start else { return }
        let operation = self.operation
        let task = Task {
            let result: Result<Output, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            self.complete(with: result)
        }
        let cancelled = lock.withLock {
            guard downstream != nil else { return true }
            self.task = task
            return false
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock {
            downstream = nil
            defer { self.task = nil }
            return self.task
        }
        task?.cancel()
    }

    private func complete(with result: Result<Output, any Error>) {
        let downstream = lock.withLock {
            defer {
                self.downstream = nil
                self.task = nil
            }
            return self.downstream
        }
        guard let downstream else { return }
        switch result {
        case .success(let value):
            _ = downstream.receive(value)
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(error))
        }
    }
}
#endif  // OpenCombine
