import Foundation
import Hummingbird

/// `POST /revoke`: the RFC 7009 token revocation endpoint.
///
/// Clients authenticate as at the token endpoint. Revoking a refresh token revokes its whole family (every access
/// token issued along it); revoking an access token revokes that token. Unknown or already revoked tokens get
/// `200` as well (§2.2); a token of another client gets `400 unauthorized_client` (§2.1).
struct RevocationEndpoint: Sendable {
    let state: ServerState

    func respond(to request: Request) async throws -> Response {
        state.withLock { $0.stats.revocationRequests += 1 }
        guard request.method == .post else {
            return Reply.json(
                ["error": "invalid_request", "error_description": "The revocation endpoint accepts only POST."],
                status: .methodNotAllowed, headers: [.allow: "POST"])
        }
        var request = request
        let body = try await request.collectBody(upTo: TokenEndpoint.maximumRequestSize)
        guard let pairs = FormDecoding.pairs(String(buffer: body)) else {
            return Reply.oauthError("invalid_request", "The form body is not validly encoded.")
        }
        let form = Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let client: OAuthTestServer.RegisteredClient
        switch ClientAuthentication.authenticate(
            authorization: request.headers[.authorization], form: form, configuration: state.configuration)
        {
        case .failure(let failure):
            return Reply.oauthError(failure.code, failure.description)
        case .success(let (authenticated, _)):
            client = authenticated
        }
        guard let token = form["token"], !token.isEmpty else {
            return Reply.oauthError("invalid_request", "The token parameter is missing.")
        }
        let outcome = state.withLock { contents in
            let outcome = contents.ledger.revoke(token, clientID: client.id)
            if outcome == .revoked { contents.stats.revokedTokens += 1 }
            return outcome
        }
        if outcome == .wrongClient {
            return Reply.oauthError("unauthorized_client", "The token was issued to another client.")
        }
        return Reply.bytes(Data(), contentType: "application/json", status: .ok, headers: [.cacheControl: "no-store"])
    }
}

extension OAuthTestServer {
    /// The token revocation endpoint (RFC 7009), `/revoke`.
    package var revocationEndpoint: URL { url("/revoke") }
}
