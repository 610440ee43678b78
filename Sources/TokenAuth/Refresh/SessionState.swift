/// What ``AuthManager`` knows about the session: the tokens in memory, whether they came from the store, a write
/// the store has not accepted yet, a rejection by the server, and the generation that sign-in and sign-out bump.
///
/// A value: the actor coordinates, and this type keeps the rules, tested with plain values.
///
/// Invariants:
/// - ``servable`` is `current` only when the session was loaded and nothing waits to be written: a token the
///   store has not accepted is handed out only through the actor, which retries the write first.
/// - `unsaved`, when set, is what the next write must store; it is cleared only when the store accepted exactly it.
///   `unsavedIsRefresh` says how: a refresh's tokens only replace the entry they came from (``AuthSaver/update(_:)``),
///   a sign-in's replace whatever is there (``AuthSaver/save(_:)``).
/// - `loaded` becomes `true` once and stays so: a load that finishes after a sign-in or sign-out changes nothing.
/// - `rejectedRefreshToken` is set only together with `rejection`, and both are cleared by new credentials.
/// - `generation` only grows. A refresh remembers the generation it started in; after ``signIn(_:)`` or
///   ``signOut()`` its result must not change the session.
struct SessionState: Sendable {
    /// Whether the store was read (or the session set) since the manager was created.
    private(set) var loaded = false
    /// The tokens in memory.
    private(set) var current: Auth?
    /// Tokens the store has not accepted yet.
    private(set) var unsaved: Auth?
    /// Whether `unsaved` came from refreshing tokens that were stored, rather than from a sign-in.
    private(set) var unsavedIsRefresh = false
    /// Whether, as far as this session knows, the store holds its entry: loaded, adopted or written, and not
    /// signed out since.
    private(set) var storeHasEntry = false
    /// Whether a write of `unsaved` is under way, so that concurrent callers do not repeat it.
    var saving = false
    /// A refresh token the server rejected for good: it is not sent again.
    private(set) var rejectedRefreshToken: String?
    /// Why a sign-in is required, after a rejection or a sign-out.
    private(set) var rejection: AuthError?
    /// Bumped by every sign-in and sign-out.
    private(set) var generation = 0

    /// What a caller may take without asking the actor.
    var servable: Auth? { loaded && unsaved == nil ? current : nil }

    /// Whether a refresh that started in `generation` may still change the session.
    func isCurrent(_ generation: Int) -> Bool { generation == self.generation }

    /// The store's answer to the first load; ignored when a sign-in or sign-out set the session meanwhile.
    mutating func load(_ stored: Auth?) {
        guard !loaded else { return }
        current = stored
        storeHasEntry = stored != nil
        loaded = true
    }

    /// New tokens from a sign-in: they replace everything, and must be written.
    mutating func signIn(_ auth: Auth) {
        generation += 1
        current = auth
        loaded = true
        rejectedRefreshToken = nil
        rejection = nil
        unsaved = auth
        unsavedIsRefresh = false
    }

    /// The session ends: nothing in memory, nothing to write, and a sign-in is required.
    mutating func signOut() {
        generation += 1
        current = nil
        unsaved = nil
        storeHasEntry = false
        loaded = true
        rejection = AuthError.loginRequired("the session was logged out")
    }

    /// The stored entry is gone: another process signed out. Nothing is written back, and a sign-in is required.
    /// The generation is not bumped: this is what a refresh found, not something that overtook it.
    mutating func signedOutElsewhere() {
        current = nil
        unsaved = nil
        storeHasEntry = false
        rejectedRefreshToken = nil
        rejection = AuthError.loginRequired("the session was signed out in another process")
    }

    /// Tokens that another process stored, taken as they are: they are already written.
    mutating func adopt(_ stored: Auth) {
        current = stored
        storeHasEntry = true
        rejectedRefreshToken = nil
        rejection = nil
    }

    /// Tokens a refresh obtained: to be written before they are handed out. They replace the stored entry they
    /// were refreshed from, if the store holds one.
    mutating func stage(_ auth: Auth) {
        unsavedIsRefresh = storeHasEntry
        unsaved = auth
    }

    /// Staged tokens become the session's, once written (or kept unsaved for a retry).
    mutating func release(_ auth: Auth) {
        current = auth
    }

    /// The store accepted `auth`.
    mutating func saved(_ auth: Auth) {
        storeHasEntry = true
        if unsaved == auth { unsaved = nil }
    }

    /// The server rejected `refreshToken` for good.
    mutating func reject(refreshToken: String?, because rejection: AuthError) {
        rejectedRefreshToken = refreshToken
        self.rejection = rejection
    }

    /// Forgets the tokens after a permanent rejection, when the policy erases them.
    mutating func forgetTokens() {
        current = nil
        unsaved = nil
    }

    /// The rejection to throw again instead of sending `refreshToken`, which the server already refused.
    func knownRejection(of refreshToken: String?) -> AuthError? {
        guard let refreshToken, refreshToken == rejectedRefreshToken else { return nil }
        return rejection
    }
}
