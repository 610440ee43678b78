/// A global actor on GLib's global-default main context, the one GTK's thread iterates: what the main actor is to
/// an app on Apple platforms, for a GTK app on Linux.
///
/// Isolate an app's UI code to it: its functions run on GTK's thread, between GTK's events, and every `await` in
/// them returns there. Library calls awaited from it run elsewhere (nonisolated `async` functions run on Swift's
/// global executor), so the window never waits for the network or the keyring.
///
/// ```swift
/// @GLibMainActor final class SignInController {
///     let status = Label()  // the app's wrapper of a GTK label
///
///     func signInClicked(_ session: AuthSession) {
///         Task {
///             status.text = "Signing in…"
///             let account = try await session.signIn()  // runs off GTK's thread
///             status.text = "Signed in as \(account)"  // back on it
///         }
///     }
/// }
/// ```
///
/// GTK calls its signal handlers on its thread, but outside any Swift job: enter the actor there with
/// ``assumeIsolated(_:file:line:)``. The callback API of `AuthorizedClient` delivers to it when the completion is
/// a `@GLibMainActor` closure.
///
/// Its jobs run only while GTK's thread iterates the context (`g_application_run`, `g_main_loop_run`,
/// `g_main_context_iteration`): nothing isolated to it runs before the loop starts or after it ends.
@globalActor
public actor GLibMainActor {
    /// The one instance.
    public static let shared = GLibMainActor()

    private init() {}

    /// ``GLibMainContextExecutor/main``.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        GLibMainContextExecutor.main.asUnownedSerialExecutor()
    }

    /// Runs `operation` isolated to the actor, synchronously, from code that runs on GTK's thread but is not
    /// isolated to it — a GTK signal handler, a GLib source's callback. Stops the program on any other thread.
    ///
    /// ```swift
    /// let onClicked: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, _ in
    ///     GLibMainActor.assumeIsolated { window.signInClicked() }
    /// }
    /// ```
    public static func assumeIsolated<T: Sendable>(
        _ operation: @GLibMainActor () throws -> T,
        file: StaticString = #fileID,
        line: UInt = #line
    ) rethrows -> T {
        // The check the runtime makes for `assumeIsolated`: the current executor is the actor's, or its
        // `checkIsolated()` (the context's owner) passes. After it, running the closure without the hop is sound.
        shared.preconditionIsolated(
            "not on GTK's thread (the owner of GLib's default main context)", file: file, line: line)
        return try withoutActuallyEscaping(operation) { operation in
            try unsafeBitCast(operation, to: (() throws -> T).self)()
        }
    }
}
