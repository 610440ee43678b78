import Foundation
import TokenAuth

/// Who signed in, for the sign-in flows: with `openid` in the requested scope, the token response's `id_token` is
/// validated (signature against the issuer's key set, `iss`, `aud`, `azp`, `exp`, `iat`, `nonce`) and becomes the
/// `Identity` stored with the tokens; without it there is no identity.
enum SignInIdentity {
    /// Whether `scope` asks for OpenID Connect.
    static func requested(in scope: String?) -> Bool {
        scope?.split(separator: " ").contains("openid") == true
    }

    /// The identity of `response`, or `nil` when `scope` does not contain `openid`.
    ///
    /// - Throws: ``SignInError``: ``SignInError/Code/jwksMisconfigured`` when the client records no issuer or key set
    ///   (configure them, or discover the issuer), or why the `id_token` is refused.
    static func resolve(
        _ response: TokenResponse,
        scope: String?,
        nonce: String?,
        client: OAuthClient,
        transport: any HTTPTransport,
        wallClock: @escaping WallClock
    ) async throws -> Identity? {
        guard requested(in: scope) else { return nil }
        guard let verifier = IDTokenVerifier(client: client, transport: transport, wallClock: wallClock) else {
            throw SignInError.jwksMisconfigured(
                "the scope asks for openid, but the client records no issuer and jwks_uri to check the id_token with")
        }
        return try await verifier.identity(from: response, nonce: nonce, userinfoEndpoint: client.userinfoEndpoint)
    }
}
