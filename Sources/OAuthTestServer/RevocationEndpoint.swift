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
        let form = try await FormPost.parameters(of: request)
        let (client, _) = try ClientAuthentication.client(of: request, form: form, configuration: state.configuration)
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
