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
}

extension TokenEndpointClient: TokenRefresher {}
