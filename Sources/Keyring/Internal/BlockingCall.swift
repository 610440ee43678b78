import CLibSecret
import Dispatch
import Synchronization

/// Runs blocking libsecret calls on threads of their own, bounded by a timeout.
///
/// libsecret's `_sync` calls block the calling thread on D-Bus round trips (and, when a prompt is shown,
/// on the user). They must never occupy Swift's cooperative thread pool, so each runs on a dispatch queue
/// whose threads are not the pool's. Each call gets a `GCancellable` that is cancelled when the timeout
/// passes or the calling task is cancelled; libsecret then returns at once with `G_IO_ERROR_CANCELLED`.
enum BlockingCall {
    private static let queue = DispatchQueue(label: "TokenKeyring.Keyring.blocking", attributes: .concurrent)

    /// Counts the calls ``run(timeout:abandoning:timedOut:_:)`` starts in the task that binds it (and its child
    /// tasks): for tests that count the blocking threads an operation needs, while other tests run beside them.
    @TaskLocal static var counter: Counter?

    /// A count of blocking calls (see ``counter``).
    final class Counter: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
        func increment() { count.add(1, ordering: .relaxed) }
    }

    /// Runs `body` on a thread of the blocking queue; throws `timedOut` when it has not returned within `timeout`.
    ///
    /// - Parameters:
    ///   - abandoning: Asked when the timeout passes or the task is cancelled, whether the call may be given up now;
    ///     `false` (a call in the middle of a write that must not land after its caller gave up) leaves the caller
    ///     waiting for the call's own result. By default every call may be.
    ///   - timedOut: The error of a call given up at its timeout; by default the Secret Service's.
    static func run<T: Sendable>(
        timeout: Duration,
        abandoning: @escaping @Sendable () -> Bool = { true },
        timedOut: @escaping @Sendable (Duration) -> KeyringError = { .timedOut(after: $0, nil) },
        _ body: @escaping @Sendable (UnsafeMutablePointer<GCancellable>) throws -> T
    ) async throws -> T {
        counter?.increment()
        let cancellable = Cancellable()
        let outcome = ResumeOnce<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                outcome.install(continuation)
                // The timer answers the caller even if the blocking call ignored the cancellation;
                // a late result of that call is then dropped. It settles the outcome *before* cancelling:
                // the cancelled call returns at once, and its result (a cancellation) must not win the race.
                let timer = Timeout(after: timeout) {
                    guard !outcome.isDone, abandoning() else { return }
                    outcome.finish(.failure(timedOut(timeout)))
                    cancellable.cancel()
                }
                queue.async {
                    defer { timer.cancel() }
                    do {
                        outcome.finish(.success(try body(cancellable.pointer)))
                    } catch let failure as GLibFailure {
                        outcome.finish(.failure(error(for: failure, timeout: timeout)))
                    } catch {
                        outcome.finish(.failure(error))
                    }
                }
            }
        } onCancel: {
            guard !outcome.isDone, abandoning() else { return }
            outcome.finish(.failure(CancellationError()))
            cancellable.cancel()
        }
    }

    /// ``run(timeout:_:)`` on the calling thread, for a caller that is no Swift task (a command-line tool's first
    /// read, before it starts any): the timer cancels the call when the timeout passes, and the call, which libsecret
    /// ends at once when cancelled, throws `timedOut`. No thread but the timer's is used.
    static func runHere<T>(timeout: Duration, _ body: (UnsafeMutablePointer<GCancellable>) throws -> T) throws -> T {
        let cancellable = Cancellable()
        let timedOut = Atomic(false)
        let timer = Timeout(after: timeout) {
            timedOut.store(true, ordering: .sequentiallyConsistent)
            cancellable.cancel()
        }
        defer { timer.cancel() }
        do {
            return try body(cancellable.pointer)
        } catch let failure as GLibFailure {
            if timedOut.load(ordering: .sequentiallyConsistent) { throw KeyringError.timedOut(after: timeout, nil) }
            throw error(for: failure, timeout: timeout)
        }
    }

    /// The error a call bounded by `timeout` reports for `failure`.
    static func error(for failure: GLibFailure, timeout: Duration) -> any Error {
        let info = failure.info
        switch info.kind {
        case .locked: return KeyringError.locked(info.detail)
        case .notFound: return KeyringError.notFound(info.detail)
        case .noProvider: return KeyringError.serviceUnavailable(info.detail)
        case .dbusTimeout: return KeyringError.timedOut(after: timeout, info.detail)
        case .noReply:
            return ProviderPresence.hasLeft()
                ? KeyringError.providerLeft(info.detail) : KeyringError.timedOut(after: timeout, info.detail)
        case .other:
            // Cancellation reaches the caller through the timer or the task; this result is dropped.
            if info.isCancellation { return CancellationError() }
            return KeyringError.other("The Secret Service failed while \(failure.action).", info.detail)
        }
    }

    /// Owns one reference to a `GCancellable` and releases it when the last closure using it is gone. Also what a
    /// call awaited without a blocking thread is cancelled with (`SecretServiceBackend+HintedLookup.swift`).
    ///
    /// `@unchecked Sendable` is safe: the pointer never changes, and `g_cancellable_cancel` is documented
    /// as callable from any thread (GCancellable guards its state with a mutex). The reference is released
    /// only in `deinit`, after the timer, the cancellation handler and the blocking body have all let go.
    final class Cancellable: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<GCancellable>

        init() { pointer = g_cancellable_new() }
        deinit { g_object_unref(pointer) }

        func cancel() { g_cancellable_cancel(pointer) }
    }
}
