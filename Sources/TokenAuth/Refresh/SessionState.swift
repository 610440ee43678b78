#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``AuthManager`` knows about the session, and what it does next: a state machine, in the manner of
/// async-http-client's `Transaction.StateMachine`. The actor feeds it each event — the store was read, a sign-in, a
/// refresh asked for, answered or refused, a write accepted — and performs the action the event returns. The network,
/// the store and the journal stay with the actor; the decisions are made here, and tested with plain values.
///
/// The session is in one of three states (`State`), each holding only what is true in it:
/// - **unloaded**: the store was not read, and no sign-in or sign-out set the session. Only the first read
///   (``loaded(_:)``), ``signIn(_:)`` and ``signOut()`` leave it, and nothing returns to it: a first read that finishes
///   after a sign-in or sign-out changes nothing. An event that needs the store read traps here: a programming error.
/// - **signed in**: tokens are in memory, and handed out. A refresh token the server refused for good is remembered
///   with its error (``Refusal``) and not sent again; other tokens from the store or a kept answer clear it.
/// - **signed out**: no tokens in memory, and the error that says why a sign-in is required — `nil` when none were
///   ever stored or set, which is ``TokenAuthError/Code/noCredentials``.
///
/// Both loaded states carry how the session stands with the store (``StoreSync``): the version it holds, the write it
/// has not accepted yet, whether a write is under way, and whether a refresh another process began must be looked for
/// first. Tokens are ``servable`` — taken without entering the actor — only when signed in, with nothing owed to the
/// store, nothing to recover and no identity check pending. `generation` only grows: sign-in and sign-out bump it,
/// and a refresh that started in an older one no longer changes the session.
struct SessionState: Sendable {
    private enum State: Sendable {
        case unloaded
        case signedIn(tokens: Auth, refusal: Refusal?, store: StoreSync)
        case signedOut(rejection: TokenAuthError?, store: StoreSync)
    }

    private var state = State.unloaded
    /// Bumped by every sign-in and sign-out.
    private(set) var generation = 0
    /// Refresh when the access token expires within this time (``AuthManager/Configuration/leeway``).
    let leeway: Duration
    /// Below this much validity a caller waits for the refresh; above it, and inside the leeway, it is served while the
    /// refresh runs beside it (``AuthManager/Configuration/minimumValidity``).
    let minimumValidity: Duration
    /// Whether a session without a refresh token asks for the client credentials grant.
    let usesClientCredentials: Bool
    /// Whether a pending identity check keeps tokens off the fast path.
    let checksIdentity: Bool
    /// What a permanent refusal of the stored refresh token does to the store.
    let rejectionPolicy: AuthManager.RejectionPolicy

    init(
        leeway: Duration = .seconds(60), minimumValidity: Duration? = nil, usesClientCredentials: Bool = false,
        checksIdentity: Bool = false, rejectionPolicy: AuthManager.RejectionPolicy = .keepStoredCredentials
    ) {
        self.leeway = leeway
        self.minimumValidity = minimumValidity ?? leeway
        self.usesClientCredentials = usesClientCredentials
        self.checksIdentity = checksIdentity
        self.rejectionPolicy = rejectionPolicy
    }

    // MARK: What the session holds

    /// The refused refresh token of a signed-in session.
    var refusal: Refusal? {
        if case .signedIn(_, let refusal, _) = state { refusal } else { nil }
    }

    /// Whether the store was read (or a sign-in or sign-out set the session) since the manager was created.
    var isLoaded: Bool {
        if case .unloaded = state { false } else { true }
    }

    /// The tokens in memory: the ones handed out.
    var current: Auth? {
        if case .signedIn(let tokens, _, _) = state { tokens } else { nil }
    }

    /// Why a sign-in is required: the signed-out session's reason, or the refusal of a signed-in session's refresh
    /// token.
    var rejection: TokenAuthError? {
        switch state {
        case .unloaded: nil
        case .signedIn(_, let refusal, _): refusal?.error
        case .signedOut(let rejection, _): rejection
        }
    }

    /// How the session stands with the store; `nil` before it was read.
    var sync: StoreSync? {
        switch state {
        case .unloaded: nil
        case .signedIn(_, _, let store), .signedOut(_, let store): store
        }
    }

    // MARK: Events from the store

    /// The store's answer to the first read; ignored when a sign-in or sign-out set the session meanwhile.
    mutating func loaded(_ found: Auth?) {
        guard case .unloaded = state else { return }
        state = .signedOut(rejection: nil, store: StoreSync())
        _ = read(found)
    }

    /// Takes in what the store holds now. A version other than the known one wins over everything in memory but a
    /// sign-in that waits to be written: a refresh's unwritten tokens are dropped, and the store's are served (or the
    /// session ends, when the entry ended or is gone). The generation is not bumped: this is what a refresh found, not
    /// something that overtook it.
    mutating func read(_ found: Auth?) -> ReadAction {
        guard var store = sync else { unloaded("a read of the store") }
        if let found, let owed = store.owed, found.isSameVersion(as: owed.auth) {
            updateStore("a read of the store") { $0.accepted(owed.auth) }
            return .landed(found: found)
        }
        if let found, let stored = store.stored, found.isSameVersion(as: stored) { return .none }
        if found == nil, store.stored == nil { return .none }
        store.stored = found
        store.needsRecovery = found?.refreshStartedAt != nil
        if case .signIn = store.owed {
            updateStore("a read of the store") { $0 = store }
            return .none
        }
        let discarded = store.owed.flatMap { owed -> Discarded? in
            guard case .replacing(let base, let auth) = owed else { return nil }
            return Discarded(tokens: auth, base: base)
        }
        store.owed = nil
        guard let found else {
            let rejection = TokenAuthError.signedOut("the session was signed out in another process")
            state = .signedOut(rejection: rejection, store: store)
            return .ended(rejection: rejection, discarded: discarded)
        }
        if let reason = found.endReason {
            let rejection = TokenAuthError.sessionEnded(reason)
            state = .signedOut(rejection: rejection, store: store)
            return .ended(rejection: rejection, discarded: discarded)
        }
        state = .signedIn(tokens: found, refusal: nil, store: store)
        return .adopted(discarded: discarded)
    }

    /// A write begins.
    /// - Returns: what to write; `nil` when nothing is owed.
    mutating func writeStarted() -> PendingWrite? {
        guard let owed = pendingWrite else { return nil }
        updateStore("a write") { $0.writing = true }
        return owed
    }

    /// The store accepted `auth` (a write, or the mark of a refresh starting): it is the stored version now.
    mutating func written(_ auth: Auth) {
        updateStore("a write") { $0.accepted(auth) }
    }

    /// A write ended, whatever its result; what is still owed is written by the next caller.
    mutating func writeEnded() {
        updateStore("the end of a write") { $0.writing = false }
    }

    /// The store erased the entry.
    mutating func erased() {
        updateStore("an erase") { $0.stored = nil }
    }

    /// The manager looked, under the lock, for the answer of a refresh that a marked version announced, and stored it
    /// or found none.
    mutating func recovered() {
        updateStore("a recovery") { $0.needsRecovery = false }
    }

    /// The journal's answer of a refresh that kept it and could not store it, found under the lock right after a
    /// read, before anything else is decided: its refresh token must never be sent again. Whatever the action, once
    /// it is done the session has ``recovered()``.
    mutating func keptAnswerFound(_ kept: KeptAnswer?) -> KeptAnswerAction {
        guard var store = sync else { unloaded("a kept answer") }
        guard let kept else { return .none }
        if let stored = store.stored, stored.isSameVersion(as: kept.answer) { return .discard }
        let madeFromStored = switch (kept.base, store.stored) {
        case (nil, nil): true
        case (let base?, let stored?): stored.isSameVersion(as: base)
        default: false
        }
        guard madeFromStored else { return .revoke(Discarded(tokens: kept.answer, base: store.stored)) }
        store.owe(inPlaceOfStored: kept.answer)
        state = .signedIn(tokens: kept.answer, refusal: nil, store: store)
        return .store(kept.answer)
    }

    // MARK: Events from the caller

    /// New tokens from a sign-in: they replace everything, and must be written.
    mutating func signIn(_ auth: Auth) {
        generation += 1
        var store = sync ?? StoreSync()
        store.owed = .signIn(auth)
        state = .signedIn(tokens: auth, refusal: nil, store: store)
    }

    /// The session ends: nothing in memory, nothing to write, and a sign-in is required. The stored version stays until
    /// the store confirms the erase (``erased()``), so that a failed erase does not make the old tokens look new.
    mutating func signOut() {
        generation += 1
        var store = sync ?? StoreSync()
        store.owed = nil
        state = .signedOut(rejection: .signedOut("the session was logged out"), store: store)
    }

    // MARK: Events from a refresh

    /// A refresh that started in `generation` was refused for good with `refreshToken` (a permanent rejection, a
    /// misconfiguration, an identity check that can never run): not sent again until new credentials arrive. Ignored
    /// after a sign-in or sign-out.
    mutating func refreshFailed(refreshToken: String?, because error: TokenAuthError, startedIn generation: Int) {
        guard isCurrent(generation) else { return }
        switch state {
        case .unloaded:
            unloaded("a refresh's failure")
        case .signedIn(let tokens, _, let store):
            state = .signedIn(tokens: tokens, refusal: Refusal(refreshToken: refreshToken, error: error), store: store)
        case .signedOut(_, let store):
            state = .signedOut(rejection: error, store: store)
        }
    }

    /// A refresh's answer, its checks passed: it is written in place of the stored version before it is handed out.
    mutating func refreshAnswered(_ auth: Auth, startedIn generation: Int) -> AnswerAction {
        guard isCurrent(generation) else { return .discard }
        updateStore("a refresh's answer") { $0.owe(inPlaceOfStored: auth) }
        return .write
    }

    /// The write of a refresh's answer ended — stored, or kept owed for the next call — and `auth` becomes the
    /// session's, unless a sign-in or sign-out came since.
    /// - Returns: what the refresh's waiters get.
    mutating func answerReleased(
        _ auth: Auth, startedIn generation: Int, at now: Date
    ) -> Result<Auth, TokenAuthError> {
        guard isCurrent(generation) else { return afterReplacement(at: now) }
        release(auth, event: "a refresh's answer")
        return .success(auth)
    }

    /// A pending identity check of `original`, begun in `generation`, passed: `checked` (with the identity confirmed)
    /// is the session's, and is written in place of the stored version.
    /// - Returns: whether the session still held `original`; `false` changes nothing.
    mutating func identityConfirmed(_ checked: Auth, replacing original: Auth, startedIn generation: Int) -> Bool {
        guard isCurrent(generation), current == original else { return false }
        updateStore("an identity check") { $0.owe(inPlaceOfStored: checked) }
        release(checked, event: "an identity check")
        return true
    }

    /// A refresh's `id_token` proved another account, or cannot be trusted at all, after the old refresh token was
    /// spent (OpenID Connect Core §12.2): the session ends, and nothing of `answer` is used. The entry made from `base`
    /// (or, with nothing stored, from `answer`) keeps who was signed in and why it ended, with no refresh token to send
    /// again; it is written in place of the stored version.
    /// - Returns: the ``TokenAuthError/Code/sessionEnded`` error to throw, with `failure` as its cause.
    mutating func identityRejected(answer: Auth, base: Auth?, because failure: TokenAuthError) -> TokenAuthError {
        let reason = failure.code == .identityMismatch
            ? "a refresh answered for another account than the one signed in, so its tokens were discarded"
            : "the id_token of a refresh could not be verified (\(failure.reason)), so its tokens were discarded"
        let rejection = TokenAuthError.sessionEnded(reason, underlying: failure)
        end(keeping: (base ?? answer).ended(because: reason), because: rejection)
        return rejection
    }

    /// The server refused the refresh token `used` for good, and the store was read again under the lock just now:
    /// ``AuthManager/RejectionPolicy/keepStoredCredentials`` ends the session after `invalid_grant` — the entry is
    /// kept, says that a sign-in is required, and holds no refresh token that could be sent again;
    /// ``AuthManager/RejectionPolicy/eraseStoredCredentials`` forgets the tokens, for the entry to be erased. Either
    /// only while the store still holds `used`: a newer version is not this refusal's to change.
    mutating func refreshRefused(_ used: String?, because error: TokenAuthError) -> RefusalAction {
        guard let used, let stored, stored.isLive, stored.refreshToken == used else { return .none }
        switch rejectionPolicy {
        case .eraseStoredCredentials:
            guard var store = sync else { unloaded("a refusal") }
            store.owed = nil
            state = .signedOut(rejection: rejection, store: store)
            return .erase
        case .keepStoredCredentials where error == .invalidGrant:
            let reason = "the authorization server refused the refresh token (\(error.oauthErrorCode ?? "invalid_grant")), "
                + "which is not sent again"
            end(keeping: stored.ended(because: reason), because: error)
            return .writeEnded
        case .keepStoredCredentials:
            return .none
        }
    }

    // MARK: Transitions the events share

    /// `auth`, made from the stored version, becomes the session's tokens. A refusal stays: it names the refresh token
    /// it refused, which a refresh's answer does not carry.
    private mutating func release(_ auth: Auth, event: String) {
        switch state {
        case .unloaded: unloaded(event)
        case .signedIn(_, let refusal, let store): state = .signedIn(tokens: auth, refusal: refusal, store: store)
        case .signedOut(_, let store): state = .signedIn(tokens: auth, refusal: nil, store: store)
        }
    }

    /// The session ends for `rejection`, keeping `entry` (who was signed in, why it ended) to be written in place of
    /// the stored version. Nothing is served until a sign-in.
    private mutating func end(keeping entry: Auth, because rejection: TokenAuthError) {
        guard var store = sync else { unloaded("the end of the session") }
        store.owe(inPlaceOfStored: entry)
        state = .signedOut(rejection: rejection, store: store)
    }

    /// Changes how a loaded session stands with the store, keeping its tokens or rejection.
    private mutating func updateStore(_ event: String, _ body: (inout StoreSync) -> Void) {
        switch state {
        case .unloaded:
            unloaded(event)
        case .signedIn(let tokens, let refusal, var store):
            body(&store)
            state = .signedIn(tokens: tokens, refusal: refusal, store: store)
        case .signedOut(let rejection, var store):
            body(&store)
            state = .signedOut(rejection: rejection, store: store)
        }
    }

    /// Traps: `event` came before the session was loaded, which ``AuthManager`` never lets happen.
    private func unloaded(_ event: String) -> Never {
        preconditionFailure(
            "SessionState: \(event) came before the store was read; AuthManager loads the session before anything else")
    }
}

extension Auth {
    /// The entry that ends this session for `reason`: who was signed in and until when, with no refresh token to send
    /// again (``endReason``).
    fileprivate func ended(because reason: String) -> Auth {
        Auth(
            accessToken: accessToken, tokenType: tokenType, refreshToken: nil, expiresAt: expiresAt, scope: scope,
            issuedAt: issuedAt, identity: identity, endReason: reason)
    }
}
