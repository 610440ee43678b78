import Dispatch
import Synchronization

/// One call to the sandbox's keyring, as its blocking thread and its waiting caller see it: whose turn it is in this
/// process (the turns of its ``AppKeyringFile``), whether it writes, and whether its caller gave up on it.
///
/// libsecret's calls there cannot be cancelled while they wait for the Secret portal (see `FileBackendCalls`), so a
/// call that runs past its timeout is *abandoned*: its caller is told "timed out" and its thread is left inside
/// libsecret, possibly for ever. Two promises follow, and this type keeps them:
///
/// - **An abandoned call writes nothing.** A write begins only by moving the call from `running` to `writing`,
///   which fails once the call is abandoned; and a call that is `writing` is not abandoned at its timeout — its
///   caller waits for the call's own result instead. So no write lands after its caller was told "timed out", and a
///   caller told so knows that nothing was written. The wait is short: a write never talks to the portal (the key is
///   fetched before the write lock, see `AppKeyringFile.write`), it only encrypts and renames a local file.
/// - **An abandoned call holds nothing.** Its turn goes on to the next call at once, and it never holds the keyring
///   file's lock, which only a `writing` call holds (a call waiting for that lock notices within milliseconds that it
///   was abandoned and stops waiting). When its thread comes back from libsecret, it drops nothing under another
///   call's feet: it only marks libsecret's backend for dropping by the next call (`AppKeyringFile.markBackendStale`).
final class SandboxCall: Sendable {
    /// Where a call is; every change is one of the methods of ``SandboxCall``.
    enum Phase: Equatable, Sendable {
        /// Its thread waits for the process's turn.
        case queued
        /// It has the turn: it reads, or fetches the portal's key, or waits for the write lock.
        case running
        /// It took the write lock and writes: from here on it is not abandoned, its own result is awaited.
        case writing
        /// Its thread is done and gave the turn back.
        case ended
        /// Its caller was told "timed out" (or the task was cancelled). `inLibsecret`: it had started, so its thread
        /// may still be inside libsecret; else its thread never started it.
        case abandoned(inLibsecret: Bool)
    }

    /// The file whose turns the call takes, and which it marks when it comes back from libsecret abandoned.
    let file: AppKeyringFile

    private let phase = Mutex(Phase.queued)

    /// Whether the call's thread waits for the keyring file's lock, which another process (an instance of the app)
    /// holds: a timeout then is that process's, not the portal's, and its error names the lock file.
    var waitsForLock: Bool { waitingForLock.load(ordering: .sequentiallyConsistent) }
    let waitingForLock = Atomic(false)

    /// A call to `file`, queued for its turn.
    init(to file: AppKeyringFile) {
        self.file = file
    }

    /// Where the call is now.
    var current: Phase { phase.withLock { $0 } }

    /// The thread waits up to `timeout` for the process's turn. `false` when it did not come, or came for a call that
    /// was abandoned meanwhile (the turn then goes on at once).
    func waitForTurn(within timeout: Duration) -> Bool {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard file.turns.wait(timeout: .now() + seconds) == .success else { return false }
        let started = phase.withLock { phase in
            guard phase == .queued else { return false }
            phase = .running
            return true
        }
        if !started { file.turns.signal() }
        return started
    }

    /// Throws `timedOut` when the call was abandoned: its caller no longer waits, so it must go no further.
    func throwIfAbandoned() throws {
        if case .abandoned = current { throw KeyringError.appKeyringCallAbandoned }
    }

    /// The thread holds the write lock and is about to write: from now on the call is not abandoned at its timeout,
    /// so that its caller learns whether it wrote. Throws `timedOut` (and the call writes nothing) when it was
    /// abandoned already.
    func beginWriting() throws {
        let began = phase.withLock { phase in
            guard phase == .running else { return false }
            phase = .writing
            return true
        }
        if !began { throw KeyringError.appKeyringCallAbandoned }
    }

    /// The timeout, or the caller's cancellation: abandons the call unless it is writing or over. Its turn goes on to
    /// the next call at once.
    /// - Returns: `true` when the call is abandoned now (its caller is to be told so); `false` when it is writing or
    ///   has ended, and its own result is to be awaited.
    func abandonUnlessWriting() -> Bool {
        let (abandoned, heldTurn): (Bool, Bool) = phase.withLock { phase in
            switch phase {
            case .queued:
                phase = .abandoned(inLibsecret: false)
                return (true, false)
            case .running:
                phase = .abandoned(inLibsecret: true)
                return (true, true)
            case .writing, .ended, .abandoned:
                return (false, false)
            }
        }
        if heldTurn {
            file.abandonedRunning.add(1, ordering: .sequentiallyConsistent)
            file.turns.signal()
        }
        return abandoned
    }

    /// The thread is done with the call. A running call gives its turn back; an abandoned one, back from libsecret
    /// at last, marks libsecret's backend for dropping (it may have made and cached one from the file as it was then).
    func end() {
        let previous: Phase = phase.withLock { phase in
            let previous = phase
            if case .abandoned = previous {} else { phase = .ended }
            return previous
        }
        switch previous {
        case .running, .writing:
            file.turns.signal()
        case .abandoned(inLibsecret: true):
            file.markBackendStale()
            file.abandonedRunning.subtract(1, ordering: .sequentiallyConsistent)
        case .queued, .ended, .abandoned(inLibsecret: false):
            break
        }
    }
}
