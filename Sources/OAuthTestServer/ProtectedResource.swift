import Foundation
import Hummingbird

/// `/resource` and every path below it: an RFC 6750 protected resource.
///
/// A valid bearer token gets `200` and a JSON echo of the request — method, path, body (as text and as base64)
/// and the token's subject — so clients can check that a replayed body arrived byte for byte. `/resource/admin`
/// and below also need the `admin` scope and answer `403 insufficient_scope` without it.
struct ProtectedResource: Sendable {
    let state: ServerState

    /// The largest request body echoed.
    static let maximumRequestSize = 1024 * 1024

    func respond(to request: Request) async throws -> Response {
        state.withLock { $0.stats.resourceRequests += 1 }
        var request = request
        let body = try await request.collectBody(upTo: Self.maximumRequestSize)

        await state.resourceHold.pass()
        guard let token = Self.bearerToken(request.headers[.authorization]) else {
            return Reply.bearerChallenge(status: .unauthorized, error: nil, description: nil)
        }
        let now = state.configuration.clock()
        let validation = state.withLock { $0.ledger.validate(accessToken: token, now: now) }
        let record: TokenLedger.AccessToken
        switch validation {
        case .success(let valid):
            record = valid
        case .failure(.unknown):
            return Reply.bearerChallenge(status: .unauthorized, error: "invalid_token", description: "The access token is not known.")
        case .failure(.expired):
            return Reply.bearerChallenge(status: .unauthorized, error: "invalid_token", description: "The access token expired.")
        case .failure(.revoked):
            return Reply.bearerChallenge(status: .unauthorized, error: "invalid_token", description: "The access token was revoked.")
        }

        let path = request.uri.path
        if path == "/resource/admin" || path.hasPrefix("/resource/admin/") {
            guard TokenLedger.scopeItems(record.scope).contains("admin") else {
                return Reply.bearerChallenge(
                    status: .forbidden,
                    error: "insufficient_scope",
                    description: "This resource needs the admin scope.",
                    scope: "admin"
                )
            }
        }

        let bytes = Data(body.readableBytesView)
        var echo: [String: Any] = [
            "method": request.method.rawValue,
            "path": path,
            "body": String(decoding: bytes, as: UTF8.self),
            "body_base64": bytes.base64EncodedString(),
            "token_subject": record.subject,
            "client_id": record.clientID,
        ]
        if let query = request.uri.query { echo["query"] = query }
        if let scope = record.scope { echo["scope"] = scope }
        return Reply.json(echo)
    }

    /// The token of a `Bearer` Authorization header; the scheme is case-insensitive (RFC 7235 §2.1).
    static func bearerToken(_ header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
