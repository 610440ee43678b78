import Synchronization

/// Runs one of the app's hooks for a sign-in — the browser flow's `openBrowser`, the device flow's `prompt` — so
/// that a hook the app cannot run yet never holds the sign-in up, and never acts for a sign-in already given up.
///
/// A hook isolated to the main actor is the natural way to open a browser or show a code from a window; but the
/// main actor may be busy, or — in a GTK app on Linux, where nothing drains the main queue under GLib's loop —
/// never run at all. Awaited as a plain call, such a hook kept a cancelled sign-in waiting for as long as its
/// actor was unavailable, then opened the browser for a sign-in nobody wanted any more. Here:
/// - a sign-in already cancelled never starts the hook;
/// - until the hook has started, cancelling the sign-in ends the wait at once with `CancellationError`, and the
///   hook never starts afterwards: whether it may start is decided on the hook's own actor, right before it runs;
/// - once the hook has started, cancelling the sign-in cancels the hook's task (so ``SystemBrowser/open(_:)``, or
///   the hook's own `Task.isCancelled`, sees it) and waits for the hook to return: a hook that started ends before
///   its sign-in does.
enum AppHook {
    /// Runs `hook` with `value` on the hook's actor (`hook.isolation`), as described above.
    ///
    /// - Throws: The hook's error, or `CancellationError` when the sign-in was cancelled before the hook started.
    static func run<Value: Sendable>(
        _ hook: @escaping @isolated(any) @Sendable (Value) async throws -> Void,
        with value: Value
    ) async throws {
        try Task.checkCancellation()
        let run = Run()
        // Unstructured, so that the sign-in can stop waiting for it: a child task would keep the sign-in's scope
        // open until the hook's actor runs it.
        let task = Task {
            do {
                try await invoke(hook, with: value, on: hook.isolation, run: run)
                run.finish(.success(()))
            } catch {
                run.finish(.failure(error))
            }
        }
        try await withTaskCancellationHandler {
            try await run.outcome()
        } onCancel: {
            // The hook's task is cancelled first, so a hook that starts in between sees the cancellation.
            task.cancel()
            run.abandon()
        }
    }

    /// Calls `hook` once on `actor` (the hook's own isolation), unless the sign-in was given up before: the check
    /// and the call happen in one turn of that actor, so no cancellation can slip in between unseen.
    private static func invoke<Value: Sendable>(
        _ hook: @isolated(any) @Sendable (Value) async throws -> Void,
        with value: Value,
        on actor: isolated (any Actor)?,
        run: Run
    ) async throws {
        guard !Task.isCancelled, run.start() else { throw CancellationError() }
        try await hook(value)
    }

    /// Where one run of a hook stands, shared by the sign-in that waits and the task that runs the hook.
    private final class Run: Sendable {
        private enum Phase {
            /// The hook has not started: its actor has not run it yet.
            case waiting
            /// The hook is running; the sign-in waits for it to return.
            case started
            /// The sign-in was cancelled before the hook started: the hook never starts.
            case abandoned
            /// The hook returned or threw.
            case finished(Result<Void, any Error>)
        }

        private struct State {
            var phase = Phase.waiting
            var waiter: CheckedContinuation<Void, any Error>?
        }

        private let state = Mutex(State())

        /// Moves to ``Phase/started`` unless the sign-in gave the hook up; whether the hook may start.
        func start() -> Bool {
            state.withLock { state in
                guard case .waiting = state.phase else { return false }
                state.phase = .started
                return true
            }
        }

        /// Records what the hook did, and hands it to the waiting sign-in.
        func finish(_ result: Result<Void, any Error>) {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                if case .abandoned = state.phase { return nil }
                state.phase = .finished(result)
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(with: result)
        }

        /// Gives the hook up if it has not started, ending the sign-in's wait with `CancellationError`.
        func abandon() {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard case .waiting = state.phase else { return nil }
                state.phase = .abandoned
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }

        /// Waits until the hook finished, or was given up.
        func outcome() async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Result<Void, any Error>? in
                    switch state.phase {
                    case .abandoned: return .failure(CancellationError())
                    case .finished(let result): return result
                    case .waiting, .started:
                        state.waiter = continuation
                        return nil
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
