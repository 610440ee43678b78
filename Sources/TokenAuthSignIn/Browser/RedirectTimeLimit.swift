import Synchronization
import TokenAuth

/// The time limit of one wait for the browser's redirect, which stops applying once a request has taken the answer.
///
/// A code that arrived in time is exchanged to the end, however long the token endpoint takes (up to the
/// transport's own timeout): firing the time limit during the exchange would throw away a code the user already
/// granted. Whichever comes first wins, once: a request that takes the answer after the time limit passed is told so,
/// and a time limit that passes while an answer is being completed does nothing.
final class RedirectTimeLimit: Sendable {
    private enum Phase {
        /// Neither has happened yet.
        case running
        /// A request took the answer: the time limit no longer applies.
        case stopped
        /// The time limit passed first: the wait ends with a timeout.
        case passed
    }

    private let phase = Mutex(Phase.running)

    /// Stops the time limit for a request that takes the answer.
    /// - Returns: `false` when the time limit had already passed, so the wait is over.
    func stop() -> Bool {
        phase.withLock { phase in
            if phase == .running { phase = .stopped }
            return phase == .stopped
        }
    }

    /// Marks the time limit as passed.
    /// - Returns: whether it still applied, so the wait ends with a timeout; `false` once a request took the answer.
    func pass() -> Bool {
        phase.withLock { phase in
            if phase == .running { phase = .passed }
            return phase == .passed
        }
    }
}
