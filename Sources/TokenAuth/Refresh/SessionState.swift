/// What ``AuthManager`` knows about the session: the tokens it serves, the version of them the store holds, a write
/// the store has not accepted yet, a rejection by the server, and the generation that sign-in and sign-out bump.
///
/// A value: the actor coordinates, and this type keeps the rules, tested with plain values.
///
/// Invariants:
/// - ``servable`` is `current` only when the session was loaded, nothing waits to be written, and no identity check
///   is pending: anything else is handed out only through the actor, which writes or checks first.
/// - `stored` is the version the store held when this session last read or wrote it (`nil`: nothing stored). It is
///   the witness of every conditional write (``AuthSaver/update(_:replacing:)``), and what a re-read is compared
///   with to tell that another process wrote.
/// - `pendingWrite`, when set, is what the next write must store; it is cleared only when the store accepted exactly
///   it, or when the store turned out to hold a newer version (which then wins over a refresh's tokens).
/// - `loaded` becomes `true` once and stays so: a load that finishes after a sign-in or sign-out changes nothing.
/// - `rejectedRefreshToken` is set only together with `rejection`, and both are cleared by new credentials.
/// - `needsRecovery` is set when a read finds a version marked as refreshing (``Auth/refreshStartedAt``) — a refresh
///   another process began and may not have stored — and cleared once the manager looked, under the lock, for the
///   answer that refresh may have kept (``RefreshJournal``). Until then nothing is servable.
/// - `generation` only grows. A refresh remembers the generation it started in; after ``signIn(_:)`` or
///   ``signOut()`` its result must not change the session.
struct SessionState: Sendable {
    /// A write the store has not accepted yet.
    enum PendingWrite: Sendable, Equatable {
        /// A sign-in's tokens: they replace whatever is stored (``AuthSaver/save(_:)``).
        case signIn(Auth)
        /// Tokens made from the stored version `base` — a refresh's, a passed identity check's, an ended session's —
        /// written only in place of `base` (``AuthSaver/update(_:replacing:)``); with no `base` (nothing was
        /// stored: the session lived in memory only) they are saved.
        case replacing(base: Auth?, with: Auth)

        /// The tokens to write.
        var auth: Auth {
            switch self {
            case .signIn(let auth), .replacing(_, let auth): auth
            }
        }
    }

    /// What a re-read of the store changed.
    enum StoreChange: Sendable, Equatable {
        /// The store holds the version this session knows.
        case unchanged
        /// Another process stored other tokens; the session serves them now.
        case adopted
        /// Another process ended the session (``Auth/endReason``).
        case ended
        /// The entry is gone: another process signed out.
        case signedOut
        /// The store changed, but a sign-in of this session waits to be written and stays the session.
        case keptSignIn
        /// The store holds the write this session still owed it: a write reported failed had landed after all (a
        /// call that timed out but completed). It counts as written.
        case landed
    }

    /// Whether a pending identity check keeps tokens off the fast path.
    let checksIdentity: Bool
    /// Whether the store was read (or the session set) since the manager was created.
    private(set) var loaded = false
    /// The tokens in memory: the ones handed out.
    private(set) var current: Auth?
    /// The version the store held when this session last read or wrote it; `nil` when nothing was stored.
    private(set) var stored: Auth?
    /// What the store has not accepted yet.
    private(set) var pendingWrite: PendingWrite?
    /// Whether a write of `pendingWrite` is under way, so that concurrent callers do not repeat it.
    var saving = false
    /// Whether a read found a version marked as refreshing, and the manager has not yet looked for its answer.
    private(set) var needsRecovery = false
    /// A refresh token the server rejected for good: it is not sent again.
    private(set) var rejectedRefreshToken: String?
    /// Why a sign-in is required, after a rejection or a sign-out.
    private(set) var rejection: TokenAuthError?
    /// Bumped by every sign-in and sign-out.
    private(set) var generation = 0

    init(checksIdentity: Bool = false) {
        self.checksIdentity = checksIdentity
    }

    /// What a caller may take without asking the actor.
    var servable: Auth? {
        guard loaded, pendingWrite == nil, !needsRecovery, let current, current.isLive else { return nil }
        if checksIdentity, current.unverifiedIDToken != nil { return nil }
        return current
    }

    /// Whether a refresh that started in `generation` may still change the session.
    func isCurrent(_ generation: Int) -> Bool { generation == self.generation }

    /// The store's answer to the first load; ignored when a sign-in or sign-out set the session meanwhile.
    mutating func load(_ stored: Auth?) {
        guard !loaded else { return }
        loaded = true
        _ = catchUp(with: stored)
    }

    /// Takes in what the store holds now. A version other than the known one wins over everything in memory but a
    /// sign-in that waits to be written: a refresh's unwritten tokens are dropped, and the store's are served (or
    /// the session ends, when the entry ended or is gone). The generation is not bumped: this is what a refresh
    /// found, not something that overtook it.
    mutating func catchUp(with found: Auth?) -> StoreChange {
        if let found, let pendingWrite, found.isSameVersion(as: pendingWrite.auth) {
            saved(pendingWrite.auth)
            return .landed
        }
        if let found, let stored, found.isSameVersion(as: stored) { return .unchanged }
        if found == nil, stored == nil { return .unchanged }
        stored = found
        needsRecovery = found?.refreshStartedAt != nil
        if case .signIn = pendingWrite { return .keptSignIn }
        pendingWrite = nil
        rejectedRefreshToken = nil
        guard let found else {
            current = nil
            rejection = .signedOut("the session was signed out in another process")
            return .signedOut
        }
        if let reason = found.endReason {
            current = nil
            rejection = .sessionEnded(reason)
            return .ended
        }
        current = found
        rejection = nil
        return .adopted
    }

    /// New tokens from a sign-in: they replace everything, and must be written.
    mutating func signIn(_ auth: Auth) {
        generation += 1
        current = auth
        loaded = true
        rejectedRefreshToken = nil
        rejection = nil
        pendingWrite = .signIn(auth)
    }

    /// The session ends: nothing in memory, nothing to write, and a sign-in is required. `stored` stays until the
    /// store confirms the erase (``erased()``), so that a failed erase does not make the old tokens look new.
    mutating func signOut() {
        generation += 1
        current = nil
        pendingWrite = nil
        loaded = true
        rejection = .signedOut("the session was logged out")
    }

    /// The store erased the entry.
    mutating func erased() {
        stored = nil
    }

    /// The manager looked, under the lock, for the answer of a refresh that a marked version announced, and stored it
    /// or found none.
    mutating func recovered() {
        needsRecovery = false
    }

    /// Tokens derived from the stored version: to be written in its place before they are handed out.
    mutating func stage(_ auth: Auth) {
        pendingWrite = .replacing(base: stored, with: auth)
    }

    /// The session ends for `reason`, keeping `entry` (who was signed in, why it ended) to be written in place of
    /// the stored version. Nothing is served until a sign-in.
    mutating func end(keeping entry: Auth, because rejection: TokenAuthError) {
        current = nil
        pendingWrite = .replacing(base: stored, with: entry)
        self.rejection = rejection
    }

    /// The answer of a refresh that kept it and could not store it (``RefreshJournal``), found under the lock and
    /// made from the stored version: it becomes the session's, to be written in that version's place.
    mutating func takeKept(_ answer: Auth) {
        current = answer
        rejectedRefreshToken = nil
        rejection = nil
        pendingWrite = .replacing(base: stored, with: answer)
    }

    /// Staged tokens become the session's, once written (or kept pending for a retry).
    mutating func release(_ auth: Auth) {
        current = auth
    }

    /// The store accepted `auth`: it is the stored version now.
    mutating func saved(_ auth: Auth) {
        stored = auth
        if pendingWrite?.auth == auth { pendingWrite = nil }
    }

    /// The server rejected `refreshToken` for good.
    mutating func reject(refreshToken: String?, because rejection: TokenAuthError) {
        rejectedRefreshToken = refreshToken
        self.rejection = rejection
    }

    /// Forgets the tokens after a permanent rejection, when the policy erases them.
    mutating func forgetTokens() {
        current = nil
        pendingWrite = nil
    }

    /// The rejection to throw again instead of sending `refreshToken`, which the server already refused.
    func knownRejection(of refreshToken: String?) -> TokenAuthError? {
        guard let refreshToken, refreshToken == rejectedRefreshToken else { return nil }
        return rejection
    }
}
