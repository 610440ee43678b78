#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization
import TokenAuth
import TokenCtlBase

/// How `tokenctl token`, `refresh` and `request` survive being stopped while a refresh token is at the server.
///
/// Between sending a refresh grant and storing its answer, the process that sent it holds the only copy of the
/// session (the server retired the old refresh token as it answered). So these commands run in two processes:
/// - **The supervisor** — the process the caller started — runs the command as a child in a process group and session
///   of its own, with the same arguments and standard streams, waits for it, and exits as it did. SIGINT, SIGTERM and
///   SIGHUP reach the supervisor (a terminal's ^C and hang-up go to its foreground group only, which the child is not
///   in); it passes them on to the child as SIGTERM. A SIGKILL of the supervisor leaves the child running.
/// - **The child** does the work. Outside a refresh window SIGTERM ends it at once; inside one (from the write ahead
///   of the grant until its answer is stored or kept: ``SignalDeferral``) it is held until the window closes. The next
///   `tokenctl` call waits for the child's item lock, and finds the answer stored.
package enum DetachedRefresh {
    /// Set in the child's environment: this process does the work.
    package static let childVariable = "TOKENCTL_DETACHED_CHILD"

    /// The commands that may spend a refresh token.
    static let commands: Set<String> = ["token", "refresh", "request"]

    /// Runs the command in a child when it is one that may refresh and this process is not that child already: never
    /// returns then. Otherwise — another command, or in the child — returns, and this process runs the command (the
    /// child first leaves the caller's session and holds terminating signals while a refresh window is open).
    package static func runDetachedIfRefreshing(_ arguments: [String]) {
        guard let command = arguments.dropFirst().first, commands.contains(command) else { return }
        if getenv(childVariable) != nil {
            // Spawned in a session of its own (`SessionSpawn`): no controlling terminal, nothing of the caller's
            // session reaches it any more.
            signal(SIGPIPE, SIG_IGN)  // a caller that stopped reading must not end a refresh
            SignalDeferral.install()
            unblockTerminatingSignals()
            return
        }
        supervise(arguments)
    }

    /// Spawns the child, passes SIGINT, SIGTERM and SIGHUP on to it, waits for it, and ends as it ended.
    private static func supervise(_ arguments: [String]) -> Never {
        for forwarded in [SIGINT, SIGTERM, SIGHUP] { signal(forwarded, passOn) }
        unblockTerminatingSignals()
        let pid: pid_t
        do {
            pid = try SessionSpawn.spawn("/proc/self/exe", arguments: arguments, setting: childVariable)
        } catch {
            switch error {
            case .unsupported(let cause):
                // A C library that does not know POSIX_SPAWN_SETSID refuses the whole set: no child without it.
                StandardError.report("Could not prepare the process that refreshes (\(cause.sentence)).")
            case .notStarted(let cause):
                StandardError.report("Could not start the process that refreshes (\(cause.sentence)).")
            }
            exit(ExitStatus.usage.rawValue)
        }
        child.store(pid, ordering: .sequentiallyConsistent)
        // A signal that came before the pid was stored found no child to pass it on to (one pending since the start,
        // delivered as the mask was lifted, always does): pass it on now. The handler records the signal before it
        // reads the pid, so either it saw the pid or this sees the signal; at worst both, and SIGTERM comes twice.
        if firstSignal.load(ordering: .sequentiallyConsistent) != 0 { kill(pid, SIGTERM) }
        var status: Int32 = 0
        do throws(SystemCallError) {
            try systemCall { waitpid(pid, &status, 0) }
        } catch {
            StandardError.report("Could not wait for the process that refreshes (\(error.sentence)).")
            exit(ExitStatus.usage.rawValue)
        }
        if status & 0x7f == 0 { exit((status >> 8) & 0xff) }  // WIFEXITED, WEXITSTATUS
        // The child ended by a signal: end by the one this process was sent, else by the child's.
        let received = firstSignal.load(ordering: .sequentiallyConsistent)
        let ending = received != 0 ? received : status & 0x7f
        signal(ending, SIG_DFL)
        kill(getpid(), ending)
        exit(128 + ending)
    }

    /// Lets SIGINT, SIGTERM and SIGHUP reach this thread: a parent that spawned this process from a thread that blocks
    /// them (Foundation's `Process` does, from a libdispatch thread) passes its mask on, and a blocked SIGTERM would
    /// never be handled.
    private static func unblockTerminatingSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for terminating in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, terminating) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// The child's pid, for the signal handler.
    private static let child = Atomic<pid_t>(0)
    /// The first terminating signal the supervisor received, 0 before any.
    private static let firstSignal = Atomic<Int32>(0)

    /// Passes a terminating signal on to the child as SIGTERM (async-signal-safe: atomics and `kill`).
    private static let passOn: @convention(c) (Int32) -> Void = { received in
        _ = DetachedRefresh.firstSignal.compareExchange(expected: 0, desired: received, ordering: .sequentiallyConsistent)
        let pid = DetachedRefresh.child.load(ordering: .sequentiallyConsistent)
        if pid > 0 { kill(pid, SIGTERM) }
    }
}

/// Holds SIGINT, SIGTERM and SIGHUP while a refresh window of this process is open: a `RefreshWindowGuard` for
/// `tokenctl`'s child (``DetachedRefresh``). A signal that arrives outside every window ends the process at once, as
/// usual; one that arrives inside is remembered and ends it as soon as the last window closes — once the answer is
/// stored (or kept, and the error reported).
package struct SignalDeferral: RefreshWindowGuard {
    package init() {}

    /// Open windows; the pending signal, 0 when none.
    private static let openWindows = Atomic<Int>(0)
    private static let pending = Atomic<Int32>(0)

    /// Installs the handlers; call once, before any window opens.
    static func install() {
        for deferred in [SIGINT, SIGTERM, SIGHUP] { signal(deferred, handle) }
    }

    package func enter() async -> @Sendable () -> Void {
        Self.openWindows.add(1, ordering: .sequentiallyConsistent)
        return {
            guard Self.openWindows.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 else { return }
            let signal = Self.pending.load(ordering: .sequentiallyConsistent)
            if signal != 0 { Self.end(by: signal) }
        }
    }

    /// Ends the process by `received`, as its default action would have. Sent to the process, not raised in this
    /// thread: a window closes on a thread of Swift's pool, whose libdispatch threads block every signal.
    private static func end(by received: Int32) {
        signal(received, SIG_DFL)
        kill(getpid(), received)
    }

    /// In a window: remembered; outside: the default action now (async-signal-safe: atomics, `signal`, `raise`).
    private static let handle: @convention(c) (Int32) -> Void = { received in
        if SignalDeferral.openWindows.load(ordering: .sequentiallyConsistent) > 0 {
            _ = SignalDeferral.pending.compareExchange(expected: 0, desired: received, ordering: .sequentiallyConsistent)
            // Closed meanwhile: the window's release may have looked before this store.
            if SignalDeferral.openWindows.load(ordering: .sequentiallyConsistent) > 0 { return }
        }
        SignalDeferral.end(by: received)
    }
}
