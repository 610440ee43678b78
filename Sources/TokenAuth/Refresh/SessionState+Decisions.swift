#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``SessionState`` decides without changing: what a caller is handed, and whether a refresh must ask the server.
extension SessionState {
    /// The version the store held when this session last read or wrote it; `nil` when nothing was stored.
    var stored: Auth? { sync?.stored }
    /// What the store has not accepted yet.
    var pendingWrite: PendingWrite? { sync?.owed }
    /// Whether a read found a version marked as refreshing, and the manager has not yet looked for its answer.
    var needsRecovery: Bool { sync?.needsRecovery ?? false }

    /// The write to start now: one is owed, and none is under way.
    var writeDue: PendingWrite? {
        guard let sync, !sync.writing else { return nil }
        return sync.owed
    }

    /// What a caller may take without asking the actor: signed in, with nothing owed to the store, nothing to recover
    /// and no identity check pending. Anything else is handed out only through the actor, which writes or checks first.
    var servable: Auth? {
        guard let current, let sync, sync.owed == nil, !sync.needsRecovery, current.isLive else { return nil }
        if checksIdentity, current.unverifiedIDToken != nil { return nil }
        return current
    }

    /// Whether a refresh that started in `generation` may still change the session.
    func isCurrent(_ generation: Int) -> Bool { generation == self.generation }

    /// The rejection to throw again instead of sending `refreshToken`, which the server already refused.
    func knownRejection(of refreshToken: String?) -> TokenAuthError? {
        guard let refreshToken, let refusal, refusal.refreshToken == refreshToken else { return nil }
        return refusal.error
    }

    /// The tokens whose refreshed `id_token` waits to be checked (``Auth/unverifiedIDToken``) against the identity they
    /// keep.
    var pendingIdentityCheck: Auth? {
        guard let current, current.unverifiedIDToken != nil, current.identity != nil else { return nil }
        return current
    }

    /// What a caller that needs valid tokens gets, at `now`, once the session is prepared: fresh tokens; tokens inside
    /// the leeway but valid for longer than the minimum, with a refresh beside them; else a refresh — also with no
    /// tokens, for a client that signs in as itself while the store holds no ended entry — or why a sign-in is required.
    func tokensNeeded(at now: Date) -> TokensAction {
        guard isLoaded else { preconditionFailure("SessionState: tokens were needed before the store was read") }
        guard let current else {
            if usesClientCredentials, stored?.isLive ?? true { return .refresh(fallback: nil) }
            return .fail(rejection ?? TokenAuthError.noCredentials("no credentials are stored"))
        }
        if current.isFresh(at: now, leeway: leeway) { return .serve(current) }
        if current.servesBesideRefresh(at: now, leeway: leeway, minimumValidity: minimumValidity) {
            return .serveRefreshingBeside(current)
        }
        return .refresh(fallback: current)
    }

    /// The tokens in memory, when they serve `reason` at `now` without a request.
    func tokens(serving reason: RefreshReason, at now: Date) -> Auth? {
        guard let current, reason.isSatisfied(by: current, at: now, leeway: leeway) else { return nil }
        return current
    }

    /// What a refresh that started in `generation` for `reason` does, at `now`, with the store just read under the
    /// lock: the new session's tokens after a sign-in or sign-out; tokens that serve `reason` without a request; the
    /// backoff's error while `backingOff`; the known rejection of a refresh token the server refused; no credentials
    /// without a refresh token (unless the client signs in as itself); or the request.
    func refreshAsked(
        _ reason: RefreshReason, startedIn generation: Int, at now: Date, backingOff: TokenAuthError?
    ) -> RefreshAction {
        guard isLoaded else { preconditionFailure("SessionState: a refresh was asked for before the store was read") }
        guard isCurrent(generation) else {
            switch afterReplacement(at: now) {
            case .success(let auth): return .serve(auth)
            case .failure(let error): return .fail(error)
            }
        }
        if let served = tokens(serving: reason, at: now) { return .serve(served) }
        if let backingOff { return .fail(backingOff) }
        let refreshToken = current?.refreshToken
        if let rejection = knownRejection(of: refreshToken) { return .fail(rejection) }
        guard refreshToken != nil || usesClientCredentials else {
            return .fail(.noCredentials(current == nil ? "no credentials are stored" : "there is no refresh token"))
        }
        return .request(base: current)
    }

    /// What the waiters of a refresh get when a sign-in or sign-out replaced the session meanwhile: the new session's
    /// tokens after a sign-in, while valid at `now`; else why a sign-in is required.
    func afterReplacement(at now: Date) -> Result<Auth, TokenAuthError> {
        if let current, current.isValid(at: now) { return .success(current) }
        return .failure(rejection ?? TokenAuthError.signedOut("the session was logged out"))
    }

    /// What the waiters of a refresh get when another process wrote the entry first: its tokens, while valid at `now`;
    /// else ``TokenAuthError/Code/superseded`` (transient), and the next call refreshes from them.
    func afterSupersede(at now: Date) -> Result<Auth, TokenAuthError> {
        if let current, current.isValid(at: now) { return .success(current) }
        return .failure(TokenAuthError.superseded("the store"))
    }
}
