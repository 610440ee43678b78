import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Delays the system's suspend and shutdown while a refresh grant is in flight, through systemd-logind's delay
/// inhibitor locks.
///
/// With rotating refresh tokens the time between sending a refresh grant and storing its answer is the one window
/// in which a fault signs the user out everywhere: the server has retired the old refresh token, and only this
/// process holds the new one. A laptop whose lid closes in that window suspends with the answer on its way, and
/// wakes up with a connection that lost it. A delay lock asks logind to hold suspend and shutdown off until the lock
/// is released — or, at the longest, for logind's `InhibitDelayMaxSec` (5 seconds unless configured otherwise) — so
/// that the answer is stored first.
///
/// ```swift
/// let inhibitor = SleepInhibitor(who: "Example", why: "Storing refreshed sign-in tokens")
/// let lock = await inhibitor.acquire()   // nil where suspend cannot be delayed
/// defer { lock?.release() }
/// // send the grant, store its answer
/// ```
///
/// Best effort by design: where there is no system bus, no logind (containers, CI, other init systems), or logind
/// refuses or does not answer within ``timeout``, ``acquire()`` returns `nil` (logged at debug level) and never
/// throws — a refresh must never fail because suspend cannot be delayed. In a Flatpak sandbox the system bus reaches
/// logind only when the app's manifest allows it (`--system-talk-name=org.freedesktop.login1`).
public struct SleepInhibitor: Sendable {
    /// Who takes the lock, as `systemd-inhibit --list` shows it: the app's name.
    public let who: String
    /// Why, as `systemd-inhibit --list` shows it: a sentence for the person who wonders what delays suspend.
    public let why: String
    /// The D-Bus address of the bus that logind is asked on; `nil`: the system bus.
    public let busAddress: String?
    /// The longest ``acquire()`` waits for the bus and logind, connecting included.
    public let timeout: Duration
    private let logger: Logger

    /// Creates an inhibitor; nothing is asked until ``acquire()``.
    ///
    /// - Parameters:
    ///   - who: Who takes the lock (the app's name).
    ///   - why: Why, as a person reads it in `systemd-inhibit --list`.
    ///   - busAddress: The address of the bus where logind is asked (e.g. a test's private bus); `nil` asks on the
    ///     system bus. Each ``acquire()`` opens a connection of its own to it, so a bus that goes away never ends
    ///     the process (GIO's shared system-bus connection would) and the address is always the one given here.
    ///   - timeout: The longest ``acquire()`` waits, connecting included. It delays the grant only when the system
    ///     bus hangs: logind answers in milliseconds, and a missing bus or logind fails at once.
    ///   - logger: Where failures to take the lock are logged, at debug level.
    public init(
        who: String,
        why: String,
        busAddress: String? = nil,
        timeout: Duration = .seconds(1),
        logger: Logger = Logger(label: "TokenKeyring.SleepInhibitor")
    ) {
        self.who = who
        self.why = why
        self.busAddress = busAddress
        self.timeout = timeout
        self.logger = logger
    }

    /// Takes a delay lock on sleep and shutdown: logind's `Inhibit("sleep:shutdown", who, why, "delay")`.
    ///
    /// Runs off Swift's cooperative thread pool, bounded by ``timeout``. A lock whose answer comes after the timeout
    /// is released as soon as it arrives.
    ///
    /// - Returns: The lock, held until ``DelayLock/release()`` or until it is deinitialised; `nil` when no lock could
    ///   be taken (no system bus, no logind, a refusal, the timeout passed, or the task was cancelled), which is
    ///   logged at debug level.
    public func acquire() async -> DelayLock? {
        let request = LogindInhibit(what: "sleep:shutdown", who: who, why: why, mode: "delay", busAddress: busAddress)
        let timeout = timeout
        do {
            // The descriptor is wrapped on the blocking thread: when the timeout or the task's cancellation has
            // answered first, `BlockingCall` drops this result, and the lock's deinit closes it. (A reply that comes
            // after GIO gave up on the call is dropped, with its descriptors, by GIO.)
            let lock = try await BlockingCall.run(timeout: timeout) { cancellable in
                DelayLock(descriptor: try request.call(timeout: timeout, cancellable: cancellable))
            }
            logger.trace("sleep and shutdown delayed", metadata: ["who": "\(who)"])
            return lock
        } catch {
            logger.debug(
                "sleep and shutdown cannot be delayed; going on without", metadata: ["reason": "\(describe(error))"])
            return nil
        }
    }

    /// Runs `body` holding a delay lock when one can be taken (see ``acquire()``), and releases it when `body`
    /// returns or throws.
    public func holding<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        let lock = await acquire()
        defer { lock?.release() }
        return try await body()
    }

    private func describe(_ error: any Error) -> String {
        switch error {
        case let failure as LogindInhibit.Failure: failure.description
        case let error as KeyringError where error.code == .timedOut: "no answer within \(timeout)"
        case is CancellationError: "the task was cancelled"
        default: "\(error)"
        }
    }

    /// A delay lock held from systemd-logind: logind's file descriptor, whose closing releases the lock.
    ///
    /// Release it as soon as the answer is stored: ``release()`` may be called more than once, from any thread, and
    /// runs by itself when the lock is deinitialised. The descriptor is close-on-exec, so a child process started
    /// meanwhile does not keep the lock after this process has let go of it.
    public final class DelayLock: Sendable {
        private let descriptor: Mutex<Int32?>

        init(descriptor: Int32) {
            self.descriptor = Mutex(descriptor)
        }

        deinit { release() }

        /// Whether the lock is still held: ``release()`` has not run.
        public var isHeld: Bool { descriptor.withLock { $0 != nil } }

        /// Releases the lock (closes logind's descriptor); does nothing when it is already released.
        public func release() {
            guard let descriptor = descriptor.withLock({ $0.take() }) else { return }
            close(descriptor)
        }
    }
}
