/// Revokes tokens at the authorization server: what ``AuthManager`` needs to end tokens it received and will
/// never use.
///
/// A refresh whose answer arrives after the session changed — a sign-in or sign-out in this process or another —
/// must not store its tokens; they are still live at the server, so the manager revokes them, best effort, when it
/// has a revoker. ``TokenRevocationClient`` is the implementation for real servers (RFC 7009).
///
/// ## Implementation requirements
/// - Send each call as one request, and return or throw within a bounded time: the manager waits for it while it
///   holds the refresh lock.
/// - Treat an unknown or already revoked token as a success (RFC 7009 §2.2).
public protocol TokenRevoker: Sendable {
    /// Revokes `token`; `hint` says which kind it is.
    func revoke(_ token: String, hint: TokenRevocationClient.TokenTypeHint?) async throws
}

extension TokenRevocationClient: TokenRevoker {}
