#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One stored account and the state of its session, read without refreshing, writing or unlocking anything: what
/// `KeyringAuthStore.accountStates(of:keyring:at:leeway:)` and `FileAuthStore.accountStates(of:directory:at:leeway:)`
/// list (`KeyringAuthStore.AccountState` is this type).
public struct StoredAccountState: Sendable, Equatable {
    /// What a use of the account would meet now, without refreshing anything.
    public enum State: Sendable, Equatable {
        /// The access token is valid for longer than the leeway, until `until` (`nil`: no known expiry).
        case valid(until: Date?)
        /// The access token expires within the leeway or has expired; the next use refreshes it.
        case needsRefresh
        /// The next use needs a sign-in: the session ended (`reason` says why), or the token expired with no way
        /// to refresh it.
        case signInRequired(reason: String)
        /// The item is in a locked collection: unlocking the keyring shows more.
        case locked
        /// The item cannot be read by this version (`reason` says why); nothing was changed.
        case unreadable(reason: String)
    }

    /// The entry's account.
    public let account: String
    /// Its state.
    public let state: State
    /// Whether the `id_token` of the last refresh still waits for its check.
    public let identityCheckPending: Bool
    /// When a refresh of the account started whose answer was not stored since (`Auth.refreshStartedAt`): its
    /// refresh token may have been spent. The next use looks for the answer where it was kept.
    public var refreshStartedAt: Date? = nil
    /// The key the tokens are bound to (DPoP), without its material: its kind and thumbprint; `nil` for bearer tokens.
    public var proofKey: BoundKey? = nil

    /// What a listing shows of a DPoP key: never its material.
    public struct BoundKey: Sendable, Hashable {
        /// Where the private key lives.
        public let kind: ProofKey.Kind
        /// The RFC 7638 thumbprint: the tokens' `cnf.jkt`.
        public let thumbprint: String
        /// Whether the access token is a DPoP token (`Auth.isDPoPBound`); `false` when the server answered the proofs
        /// with bearer tokens, and the key only goes with the refreshes.
        public let tokensBound: Bool
    }

    package init(
        account: String, state: State, identityCheckPending: Bool, refreshStartedAt: Date? = nil, proofKey: BoundKey? = nil
    ) {
        self.account = account
        self.state = state
        self.identityCheckPending = identityCheckPending
        self.refreshStartedAt = refreshStartedAt
        self.proofKey = proofKey
    }

    /// The state of `credentials` of `account` at `now`, as `AuthManager` would meet them.
    package init(account: String, credentials: StoredCredentials, at now: Date, leeway: Duration) {
        self.init(
            account: account, state: Self.state(of: credentials, at: now, leeway: leeway),
            identityCheckPending: credentials.auth.unverifiedIDToken != nil,
            refreshStartedAt: credentials.auth.refreshStartedAt,
            proofKey: credentials.auth.proofKey.map {
                BoundKey(kind: $0.kind, thumbprint: $0.thumbprint, tokensBound: credentials.auth.isDPoPBound)
            })
    }

    /// An entry of `account` that cannot be read, for `reason`.
    package init(account: String, unreadable reason: String) {
        self.init(account: account, state: .unreadable(reason: reason), identityCheckPending: false)
    }

    /// The state of `credentials` at `now`, as `AuthManager` would meet them.
    private static func state(of credentials: StoredCredentials, at now: Date, leeway: Duration) -> State {
        let auth = credentials.auth
        if let reason = auth.endReason { return .signInRequired(reason: reason) }
        if auth.isFresh(at: now, leeway: leeway) { return .valid(until: auth.expiresAt) }
        let refreshable = auth.refreshToken != nil
            || (credentials.client?.usesClientCredentials == true && credentials.client?.clientSecret != nil)
        guard refreshable, credentials.client != nil else {
            return .signInRequired(reason: "the access token expires and there is nothing to refresh it with")
        }
        return .needsRefresh
    }
}
