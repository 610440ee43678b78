import Foundation
import TokenAuth

/// How every sign-in flow ends: with `openid` in the requested scope, the token response's `id_token` is validated
/// (signature against the issuer's key set, `iss`, `aud`, `azp`, `exp`, `iat`, `nonce`) and becomes the `Identity`
/// stored with the tokens; without it there is no identity.
extension TokenEndpointClient {
    /// What a sign-in returns for `response`: its tokens, with `scope` when the server named none, and who signed
    /// in, with ``client`` recorded.
    ///
    /// - Throws: ``SignInError``: ``SignInError/Code/jwksMisconfigured`` when `scope` asks for `openid` but the client
    ///   records no issuer or key set (configure them, or discover the issuer), or why the `id_token` is refused.
    func credentials(
        from response: TokenResponse, scope: String?, nonce: String?, proofKey: ProofKey? = nil
    ) async throws -> StoredCredentials {
        var auth = response.auth(updating: nil)
        auth.proofKey = proofKey
        auth.scope = auth.scope ?? scope
        if scope?.split(separator: " ").contains("openid") == true {
            guard let verifier = IDTokenVerifier(client: client, transport: transport, wallClock: wallClock) else {
                throw SignInError.jwksMisconfigured(
                    "the scope asks for openid, but the client records no issuer and jwks_uri to check the id_token with")
            }
            let identity = try await verifier.identity(
                from: response, nonce: nonce, userinfoEndpoint: client.userinfoEndpoint)
            auth.identity = identity
            if client.issuerTemplate != nil {
                // One tenant's issuer from here on: later id_tokens of this account must name the same one.
                var client = client
                client.issuer = identity.issuer
                client.issuerTemplate = nil
                return StoredCredentials(auth: auth, client: client)
            }
        }
        return StoredCredentials(auth: auth, client: client)
    }
}
