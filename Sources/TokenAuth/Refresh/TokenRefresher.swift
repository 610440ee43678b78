/// Gets new tokens from an authorization server: what ``AuthManager`` needs from a token endpoint.
///
/// ``TokenEndpointClient`` is the implementation for real servers.
///
/// ## Implementation requirements
/// - Throw ``TokenAuthError`` so the manager can tell a permanent rejection (sign in again) from a
///   transient failure (keep the tokens, try later). Classifying a network timeout as permanent would log
///   users out whenever their Wi-Fi drops; classifying `invalid_grant` as transient would retry a dead
///   refresh token forever.
/// - Send each call as exactly one request: the manager already guarantees that only one refresh runs,
///   and an implementation that retried on its own could spend a rotated refresh token twice.
public protocol TokenRefresher: Sendable {
    /// Exchanges a refresh token for new tokens (RFC 6749 §6).
    func refresh(refreshToken: String, scope: String?) async throws -> TokenResponse

    /// Gets tokens with the client's own credentials (RFC 6749 §4.4), used when there is nothing to refresh
    /// and ``AuthManager/Configuration/usesClientCredentials`` is on.
    func clientCredentials(scope: String?) async throws -> TokenResponse

    /// Exchanges a refresh token bound to `proofKey` (DPoP, RFC 9449 §5) with a proof from that key, or as
    /// ``refresh(refreshToken:scope:)`` when `proofKey` is `nil`.
    ///
    /// The default implementation handles `nil` only, and throws ``TokenAuthError/Code/proofKeyUnavailable`` for a key:
    /// implement it to refresh bound sessions.
    func refresh(refreshToken: String, scope: String?, proofKey: ProofKey?) async throws -> TokenResponse

    /// Gets tokens with the client's own credentials (RFC 6749 §4.4), bound to `proofKey` (DPoP, RFC 9449 §5) with a
    /// proof from that key, or as ``clientCredentials(scope:)`` when `proofKey` is `nil`: the grant that renews a
    /// client's tokens bound to a key.
    ///
    /// The default implementation handles `nil` only, and throws ``TokenAuthError/Code/proofKeyUnavailable`` for a key:
    /// implement it to renew bound client sessions.
    func clientCredentials(scope: String?, proofKey: ProofKey?) async throws -> TokenResponse

    /// Makes ready to prove possession of `key`, before the manager marks a refresh started: loads the key, so that a
    /// key that cannot be used fails the refresh before anything is written or spent. The default does nothing.
    func prepareProof(with key: ProofKey) async throws
}

extension TokenRefresher {
    /// Calls ``refresh(refreshToken:scope:)`` without a key; throws ``TokenAuthError/Code/proofKeyUnavailable`` with
    /// one.
    public func refresh(refreshToken: String, scope: String?, proofKey: ProofKey?) async throws -> TokenResponse {
        guard proofKey == nil else { throw TokenAuthError.proofOfPossessionNotConfigured("refresher") }
        return try await refresh(refreshToken: refreshToken, scope: scope)
    }

    /// Calls ``clientCredentials(scope:)`` without a key; throws ``TokenAuthError/Code/proofKeyUnavailable`` with one.
    public func clientCredentials(scope: String?, proofKey: ProofKey?) async throws -> TokenResponse {
        guard proofKey == nil else { throw TokenAuthError.proofOfPossessionNotConfigured("refresher") }
        return try await clientCredentials(scope: scope)
    }

    /// Does nothing.
    public func prepareProof(with key: ProofKey) async throws {}
}

extension TokenEndpointClient: TokenRefresher {
    /// Loads `key` with ``dpop``'s provider (and keeps its signer for the refresh), or throws
    /// ``TokenAuthError/Code/proofKeyUnavailable`` when this client has no ``DPoP``.
    public func prepareProof(with key: ProofKey) async throws {
        guard let dpop else { throw TokenAuthError.proofOfPossessionNotConfigured("token endpoint client") }
        _ = try await dpop.signer(for: key)
    }
}
