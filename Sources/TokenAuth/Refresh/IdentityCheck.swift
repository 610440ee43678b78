/// Checks the `id_token` a refresh returns against the identity stored before it: what ``AuthManager`` needs so
/// that a refresh can never silently change who is signed in.
///
/// ``IDTokenVerifier`` is the implementation for real issuers; set it as
/// ``AuthManager/Configuration/identityCheck``.
///
/// ## Implementation requirements
/// - ``prepare()`` must do whatever needs the network *before* the refresh token is sent (fetch the issuer's
///   keys): a server that rotates refresh tokens spends the old one with the request, so a check that could only
///   fail afterwards, for want of keys, would lose the new refresh token with the discarded response.
/// - ``identity(afterRefresh:keeping:)`` must throw unless the new `id_token` is valid and names the same issuer
///   and subject as `previous`: the manager then discards the refresh's tokens instead of handing out tokens of
///   another account under the stored identity. Throw ``IDTokenError`` so the manager can tell a transient failure
///   (keep what is stored, try later) from a permanent one.
public protocol IdentityCheck: Sendable {
    /// Gets ready to check a refresh, before the refresh token is sent.
    func prepare() async throws

    /// The identity after a refresh whose response is `response`: `previous` (perhaps with a new display name)
    /// when the response's `id_token` is valid and for the same account, or `previous` unchanged when it has none.
    func identity(afterRefresh response: TokenResponse, keeping previous: Identity) async throws -> Identity
}

extension IDTokenVerifier: IdentityCheck {}
