import CGLib
import Foundation
import Synchronization
import TestSupport

/// A thread of the test's own that runs a `GMainLoop` on a context — the global-default one, as GTK's thread does,
/// or a private one — from ``start()`` until ``stop()``.
final class LoopThread: Sendable {
    /// `nonisolated(unsafe)`: set once in `init`, and GLib's main loop and context functions called from other
    /// threads here (`g_main_loop_quit`, `g_main_loop_is_running`) take the context's lock.
    private nonisolated(unsafe) let loop: OpaquePointer
    private let state = Mutex<(thread: pthread_t?, finished: CheckedContinuation<Void, Never>?, done: Bool)>(
        (nil, nil, false))

    /// A loop on `context`, a `GMainContext *`; `nil` for the global-default context.
    init(context: OpaquePointer? = nil) {
        loop = g_main_loop_new(context, 0)
    }

    deinit {
        g_main_loop_unref(loop)
    }

    /// The loop's thread, once it runs.
    var thread: pthread_t? { state.withLock { $0.thread } }

    /// Whether the calling thread is the loop's.
    var isCurrent: Bool { thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }

    /// Starts the thread and returns once its loop runs.
    func start() async throws {
        let thread = Thread { [self] in
            state.withLock { $0.thread = pthread_self() }
            g_main_loop_run(loop)
            let waiter = state.withLock { state in
                state.done = true
                defer { state.finished = nil }
                return state.finished
            }
            waiter?.resume()
        }
        thread.start()
        try await waitUntil("the loop thread to run its loop", within: .seconds(10)) {
            g_main_loop_is_running(loop) != 0 && self.thread != nil
        }
    }

    /// Quits the loop and waits until its thread left it.
    func stop() async {
        g_main_loop_quit(loop)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if !state.done { state.finished = continuation }
                return state.done
            }
            if done { continuation.resume() }
        }
    }
}

/// Whether `thread` is the calling thread.
func isCurrentThread(_ thread: pthread_t?) -> Bool {
    thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
}
