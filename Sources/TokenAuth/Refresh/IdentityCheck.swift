/// Checks the `id_token` a refresh returns against the identity stored before it: what ``AuthManager`` needs so
/// that a refresh can never silently change who is signed in.
///
/// TokenAuthSignIn's `IDTokenVerifier` is the implementation for real issuers; set it as
/// ``AuthManager/Configuration/identityCheck``. The core knows identity only through this protocol.
///
/// ## Implementation requirements
/// - ``prepareCheck()`` must do whatever needs the network *before* the refresh token is sent (fetch the issuer's
///   keys): a check that can run at once after the refresh spares the session a pending check. It throws the same
///   way: ``TokenAuthError/Code/identityUnavailable`` keeps the refresh token unsent and backs off; anything else
///   stops the refresh as a configuration error.
/// - ``checkRefresh(_:keeping:)`` must throw unless the new `id_token` is valid and names the same issuer and subject
///   as `previous`. Throw ``TokenAuthError/identityCheck(_:reason:fix:underlying:)``, so the manager can tell a check
///   that cannot run just now (``TokenAuthError/Code/identityUnavailable``: the answer is kept and checked again
///   later) from one that proves another account (``TokenAuthError/Code/identityMismatch``) or cannot be trusted
///   (``TokenAuthError/Code/identityUntrusted``), which end the session; any other error counts as untrusted.
public protocol IdentityCheck: Sendable {
    /// Gets ready to check a refresh, before the refresh token is sent.
    func prepareCheck() async throws

    /// The identity after a refresh whose response is `response`: `previous` (perhaps with a new display name)
    /// when the response's `id_token` is valid and for the same account, or `previous` unchanged when it has none.
    func checkRefresh(_ response: TokenResponse, keeping previous: Identity) async throws -> Identity
}

/// Makes the ``IdentityCheck`` for a stored client (its issuer and key set recorded), with the transport and wall
/// clock to use, or `nil` when the client records too little to check anything: how a store that rebuilds a manager
/// from a stored item (TokenAuthKeyring's `AuthManager.forKeyringItem`) gets one without depending on a JOSE library.
/// TokenAuthSignIn's `IDTokenVerifier.forStoredClient` is one.
public typealias IdentityCheckFactory = @Sendable (OAuthClient, any HTTPTransport, @escaping WallClock) -> (any IdentityCheck)?
