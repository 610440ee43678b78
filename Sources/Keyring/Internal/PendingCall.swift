import CDBusBatch
import CLibSecret
import Synchronization

/// A D-Bus method call whose reply resumes the calling task straight from GDBus's worker thread
/// (`CDBusBatch`'s `pending_call.c`): no thread blocks on it and no main context is made for it, so a call costs the
/// two thread hand-offs a blocking call on a thread of the caller's own would (the bus's worker, then the caller).
enum PendingCall {
    struct Unanswered: Error {}

    /// A reply message (a `GDBusMessage` reference) handed from the worker thread to the waiting task.
    ///
    /// `@unchecked Sendable` is safe: the reference moves, never shared — the callback gives it to exactly one
    /// receiver (the task, or `finish`, which releases a reply that lost the race), and a `GDBusMessage` that
    /// GDBus delivered is locked (immutable), so reading it from another thread is allowed.
    struct Reply: @unchecked Sendable {
        let message: OpaquePointer
    }

    /// Sends `message` (a method call; the caller keeps its reference) on `connection` and returns the reply, or
    /// the error reply, whose reference the caller releases.
    /// - Throws: ``Unanswered`` when it could not be sent; ``KeyringError/Code/timedOut`` when no answer came within
    ///   `timeout`; `CancellationError` when the task is cancelled first.
    static func reply(to message: OpaquePointer, on connection: OpaquePointer, timeout: Duration) async throws -> Reply {
        let waiter = Waiter()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Reply, any Error>) in
                waiter.install(continuation)
                // Cancelled already: nothing is sent, so no reply can outlive the wait.
                guard !waiter.isDone else { return }
                // The waiter stays alive until the callback ran or the call was abandoned.
                let context = Unmanaged.passRetained(waiter).toOpaque()
                let serial = tokenkeyring_call_without_waiting(connection, message, { reply, context in
                    let waiter = Unmanaged<Waiter>.fromOpaque(context!).takeRetainedValue()
                    if let reply {
                        waiter.finish(.success(Reply(message: reply)))
                    } else {
                        waiter.finish(.failure(Unanswered()))
                    }
                }, context)
                guard serial != 0 else {
                    Unmanaged<Waiter>.fromOpaque(context).release()
                    waiter.finish(.failure(Unanswered()))
                    return
                }
                waiter.serial = serial
                // Cancelled while sending: the cancellation handler found no serial to abandon.
                if waiter.isDone {
                    waiter.abandonIfSent(with: CancellationError())
                    return
                }
                let timer = Timeout(after: timeout) { waiter.abandonIfSent(with: KeyringError.timedOut(after: timeout, nil)) }
                waiter.timer = timer
            }
        } onCancel: {
            waiter.abandonIfSent(with: CancellationError())
        }
    }

    /// Resumes the caller exactly once (``ResumeOnce``), with the reply, the timeout or the cancellation; releases a
    /// reply that lost, and stops the timer.
    private final class Waiter: Sendable {
        private let outcome = ResumeOnce<Reply>()
        private let call = Mutex<(serial: guint32, timer: Timeout?)>((0, nil))

        var isDone: Bool { outcome.isDone }

        var serial: guint32 {
            get { call.withLock { $0.serial } }
            set { call.withLock { $0.serial = newValue } }
        }

        /// The call's timer; stopped at once when the call has already finished.
        var timer: Timeout? {
            get { call.withLock { $0.timer } }
            set {
                call.withLock { $0.timer = newValue }
                if outcome.isDone { newValue?.cancel() }
            }
        }

        func install(_ continuation: CheckedContinuation<Reply, any Error>) {
            outcome.install(continuation)
        }

        func finish(_ result: Result<Reply, any Error>) {
            if !outcome.finish(result), case .success(let reply) = result {
                g_object_unref(UnsafeMutableRawPointer(reply.message))
            }
            timer?.cancel()
        }

        /// Stops waiting for the reply; when its callback has not been taken, releases the reference that callback
        /// would have released.
        func abandonIfSent(with error: any Error) {
            let serial = self.serial
            if serial != 0, tokenkeyring_call_abandon(serial) != 0 {
                // The callback will not run: it held the reference passed as its context.
                Unmanaged.passUnretained(self).release()
            }
            finish(.failure(error))
        }
    }
}
