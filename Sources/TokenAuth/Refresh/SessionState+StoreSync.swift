extension SessionState {
    /// How a session stands with its store: the version the store holds, the write it has not accepted yet, whether a
    /// write is under way, and whether a refresh another process began must be looked for first. Part of each loaded
    /// ``SessionState``.
    struct StoreSync: Sendable, Equatable {
        /// The version the store held when this session last read or wrote it; `nil` when nothing was stored. It is the
        /// witness of every conditional write (``AuthSaver/update(_:replacing:)``), and what a re-read is compared with
        /// to tell that another process wrote.
        var stored: Auth?
        /// The write the store has not accepted yet. Cleared only when the store accepted exactly it, or turned out to
        /// hold a newer version (which then wins over a refresh's tokens). A sign-in's is owed only while signed in.
        var owed: PendingWrite?
        /// Whether a write is under way, so that concurrent callers do not repeat it.
        var writing = false
        /// Whether a read found a version marked as refreshing (``Auth/refreshStartedAt``) — a refresh another process
        /// began and may not have stored — whose answer the manager has not yet looked for under the lock
        /// (``RefreshJournal``). Until then nothing is servable.
        var needsRecovery = false

        /// The store accepted `auth`: it is the stored version now, and no longer owed.
        mutating func accepted(_ auth: Auth) {
            stored = auth
            if owed?.auth == auth { owed = nil }
        }

        /// Tokens made from the stored version, owed to the store in its place.
        mutating func owe(inPlaceOfStored auth: Auth) {
            owed = .replacing(base: stored, with: auth)
        }
    }

    /// A write the store has not accepted yet.
    enum PendingWrite: Sendable, Equatable {
        /// A sign-in's tokens: they replace whatever is stored (``AuthSaver/save(_:)``).
        case signIn(Auth)
        /// Tokens made from the stored version `base` — a refresh's, a passed identity check's, an ended session's —
        /// written only in place of `base` (``AuthSaver/update(_:replacing:)``); with no `base` (nothing was stored:
        /// the session lived in memory only) they are saved.
        case replacing(base: Auth?, with: Auth)

        /// The tokens to write.
        var auth: Auth {
            switch self {
            case .signIn(let auth), .replacing(_, let auth): auth
            }
        }
    }
}
