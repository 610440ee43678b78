/// What ``AuthManager`` knows about the session: the tokens in memory, whether they came from the store, a write
/// the store has not accepted yet, a rejection by the server, and the generation that sign-in and sign-out bump.
///
/// A value: the actor coordinates, and this type keeps the rules, tested with plain values.
///
/// Invariants:
/// - ``servable`` is `current` only when the session was loaded and nothing waits to be written: a token the
///   store has not accepted is handed out only through the actor, which retries the write first.
/// - `unsaved`, when set, is what the next write must store; it is cleared only when the store accepted exactly it.
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

    /// The store's answer to the first load.
    mutating func load(_ stored: Auth?) {
        current = stored
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
    }

    /// The session ends: nothing in memory, nothing to write, and a sign-in is required.
    mutating func signOut() {
        generation += 1
        current = nil
        unsaved = nil
        loaded = true
        rejection = AuthError.loginRequired("the session was logged out")
    }

    /// Tokens that another process stored, taken as they are: they are already written.
    mutating func adopt(_ stored: Auth) {
        current = stored
        rejectedRefreshToken = nil
        rejection = nil
    }

    /// Tokens a refresh obtained: to be written before they are handed out.
    mutating func stage(_ auth: Auth) {
        unsaved = auth
    }

    /// Staged tokens become the session's, once written (or kept unsaved for a retry).
    mutating func release(_ auth: Auth) {
        current = auth
    }

    /// The store accepted `auth`.
    mutating func saved(_ auth: Auth) {
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
