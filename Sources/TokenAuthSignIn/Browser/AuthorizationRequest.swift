import Foundation
import TokenAuth

/// One authorization request of a browser sign-in (RFC 6749 §4.1.1 with RFC 7636 §4.3): the URL to open and the
/// secrets to check the answer against.
struct AuthorizationRequest: Sendable {
    let pkce: PKCE
    /// Random, 256 bits: the answer must carry it back (RFC 6749 §10.12).
    let state: String
    /// Random, 256 bits, sent when the scope contains `openid`: the id_token must carry it back.
    let nonce: String?
    let redirectURI: URL
    let url: URL
    /// The key the tokens are to be bound to (DPoP), announced as `dpop_jkt` (RFC 9449 §10); `nil` for bearer tokens.
    let proofKey: ProofKey?

    init(
        endpoint: URL, clientID: String, redirectURI: URL, scope: String?, pkce: PKCE = PKCE(), proofKey: ProofKey? = nil
    ) {
        self.pkce = pkce
        self.proofKey = proofKey
        state = Base64URL.randomValue()
        let scopes = scope?.split(separator: " ").map(String.init) ?? []
        nonce = scopes.contains("openid") ? Base64URL.randomValue() : nil
        self.redirectURI = redirectURI
        var parameters: [(name: String, value: String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI.absoluteString),
        ]
        if let scope { parameters.append(("scope", scope)) }
        parameters += [("state", state), ("code_challenge", pkce.challenge), ("code_challenge_method", PKCE.method)]
        if let nonce { parameters.append(("nonce", nonce)) }
        if let proofKey { parameters.append(("dpop_jkt", proofKey.thumbprint)) }
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        let query = parameters.map { "\(FormEncoding.escape($0.name))=\(FormEncoding.escape($0.value))" }
            .joined(separator: "&")
        components.percentEncodedQuery = [components.percentEncodedQuery, query].compactMap { $0 }
            .filter { !$0.isEmpty }.joined(separator: "&")
        url = components.url!
    }
}
