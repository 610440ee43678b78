import Foundation
import TokenAuth

extension TokenEndpointClient {
    /// Exchanges an authorization code for tokens (RFC 6749 §4.1.3), proving possession of the PKCE verifier
    /// (RFC 7636 §4.5).
    ///
    /// Most apps use ``BrowserSignIn``, which obtains the code and calls this.
    ///
    /// - Parameters:
    ///   - code: The `code` from the authorization response. Never appears in an error.
    ///   - redirectURI: The `redirect_uri` sent with the authorization request, exactly.
    ///   - codeVerifier: The PKCE verifier whose challenge went with the authorization request. Never appears in an
    ///     error.
    ///   - proofKey: The key to bind the tokens to, with a DPoP proof (RFC 9449 §5): the one whose thumbprint went with
    ///     the authorization request as `dpop_jkt`. `nil` for bearer tokens.
    /// - Throws: `TokenAuthError` (`invalid_grant` for a used, expired or mismatched code or verifier), or
    ///   `CancellationError`.
    public func authorizationCode(
        _ code: String, redirectURI: URL, codeVerifier: String, proofKey: ProofKey? = nil
    ) async throws -> TokenResponse {
        try await requestToken(
            [
                (name: "grant_type", value: "authorization_code"), (name: "code", value: code),
                (name: "redirect_uri", value: redirectURI.absoluteString), (name: "code_verifier", value: codeVerifier),
            ],
            secrets: [code, codeVerifier], proofKey: proofKey)
    }
}
