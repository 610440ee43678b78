import Foundation
import Hummingbird

/// `/resource` and every path below it: an RFC 6750 protected resource, and an RFC 9449 §7 one for DPoP-bound tokens.
///
/// A valid token gets `200` and a JSON echo of the request — method, path, body (as text and as base64), the
/// token's subject, its `token_type` (`Bearer` or `DPoP`) and, when bound, its key's thumbprint `jkt` — so clients
/// can check that a replayed body arrived byte for byte. `/resource/admin` and below also need the `admin` scope
/// and answer `403 insufficient_scope` without it.
///
/// A bearer token goes in `Authorization: Bearer …`. A DPoP-bound token goes in `Authorization: DPoP …` with a
/// proof of its key whose `ath` hashes it; sent as `Bearer` it answers `401` `DPoP error="invalid_token"`, and a
/// missing or invalid proof `401` `DPoP error="invalid_dpop_proof"` (``DPoPCheck``). With
/// ``OAuthTestServer/Configuration/dpopNonces`` every answer carries `DPoP-Nonce`.
struct ProtectedResource: Sendable {
    let state: ServerState

    /// The largest request body echoed.
    static let maximumRequestSize = 1024 * 1024

    /// The schemes of the `Authorization` header the resource accepts.
    enum Scheme: String {
        case bearer = "Bearer"
        case dpop = "DPoP"
    }

    func respond(to request: Request) async throws -> Response {
        let response = try await answer(request)
        guard state.configuration.dpopNonces else { return response }
        return Reply.addingDPoPNonce(state.withLock { $0.dpop.nonce }, to: response)
    }

    private func answer(_ request: Request) async throws -> Response {
        state.withLock { $0.stats.resourceRequests += 1 }
        var request = request
        let body = try await request.collectBody(upTo: Self.maximumRequestSize)

        await state.resourceHold.pass()
        guard let (scheme, token) = Self.credentials(request.headers[.authorization]) else {
            return Reply.bearerChallenge(status: .unauthorized, error: nil, description: nil)
        }
        var proof: DPoPProof?
        if scheme == .dpop {
            if state.withLock({ $0.faults.takeEmptyDPoPUnauthorized() }) { return Reply.emptyUnauthorized() }
            switch await DPoPCheck(state: state).check(request, accessToken: token) {
            case .absent: return refuseProof("The request has no DPoP proof.")
            case .refused(let description): return refuseProof(description)
            case .nonceNeeded(let description): return nonceChallenge(description)
            case .valid(let valid): proof = valid
            }
        }
        let record: TokenLedger.AccessToken
        switch validToken(token, scheme: scheme) {
        case .success(let valid): record = valid
        case .failure(let refusal): return refusal.reply
        }
        if let proof, proof.thumbprint != record.jkt {
            return refuseProof("The DPoP proof's key is not the one the access token is bound to.")
        }

        let path = request.uri.path
        if path == "/resource/admin" || path.hasPrefix("/resource/admin/") {
            guard TokenLedger.scopeItems(record.scope).contains("admin") else {
                let description = "This resource needs the admin scope."
                if scheme == .dpop {
                    return Reply.dpopChallenge(status: .forbidden, error: "insufficient_scope", description: description, scope: "admin")
                }
                return Reply.bearerChallenge(status: .forbidden, error: "insufficient_scope", description: description, scope: "admin")
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
            "token_type": scheme.rawValue,
        ]
        if let query = request.uri.query { echo["query"] = query }
        if let scope = record.scope { echo["scope"] = scope }
        if let jkt = record.jkt { echo["jkt"] = jkt }
        return Reply.json(echo)
    }

    /// A refusal of the presented access token, as a `Response` the resource sends.
    private struct TokenRefusal: Error {
        let reply: Response
    }

    /// The ledger's record of `token` if it is live and presented with the scheme its binding needs: `DPoP` for a
    /// bound token, `Bearer` for the others.
    private func validToken(_ token: String, scheme: Scheme) -> Result<TokenLedger.AccessToken, TokenRefusal> {
        func refusal(_ description: String) -> TokenRefusal {
            switch scheme {
            case .bearer:
                TokenRefusal(reply: Reply.bearerChallenge(status: .unauthorized, error: "invalid_token", description: description))
            case .dpop:
                TokenRefusal(reply: Reply.dpopChallenge(error: "invalid_token", description: description))
            }
        }
        let now = state.configuration.clock()
        switch state.withLock({ $0.ledger.validate(accessToken: token, now: now) }) {
        case .success(let record) where record.jkt != nil && scheme == .bearer:
            return .failure(TokenRefusal(reply: Reply.dpopChallenge(
                error: "invalid_token",
                description: "The access token is bound to a DPoP key: send it with the DPoP scheme and a proof.")))
        case .success(let record) where record.jkt == nil && scheme == .dpop:
            return .failure(refusal("The access token is not bound to a DPoP key: send it with the Bearer scheme."))
        case .success(let record): return .success(record)
        case .failure(.unknown): return .failure(refusal("The access token is not known."))
        case .failure(.expired): return .failure(refusal("The access token expired."))
        case .failure(.revoked): return .failure(refusal("The access token was revoked."))
        }
    }

    /// `401` `DPoP error="invalid_dpop_proof"` (RFC 9449 §7.1), counted.
    private func refuseProof(_ description: String) -> Response {
        state.withLock { $0.stats.dpopProofRefusals += 1 }
        return Reply.dpopChallenge(error: "invalid_dpop_proof", description: description)
    }

    /// `401` `DPoP error="use_dpop_nonce"` (RFC 9449 §9), counted; ``respond(to:)`` adds the `DPoP-Nonce`.
    private func nonceChallenge(_ description: String) -> Response {
        state.withLock { $0.stats.dpopNonceChallenges += 1 }
        return Reply.dpopChallenge(error: "use_dpop_nonce", description: description)
    }

    /// The scheme and token of an Authorization header with the `Bearer` or `DPoP` scheme, compared
    /// case-insensitively (RFC 7235 §2.1).
    static func credentials(_ header: String?) -> (Scheme, String)? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let scheme: Scheme
        switch parts[0].lowercased() {
        case "bearer": scheme = .bearer
        case "dpop": scheme = .dpop
        default: return nil
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : (scheme, token)
    }

    /// The token of a `Bearer` Authorization header; the scheme is case-insensitive (RFC 7235 §2.1).
    static func bearerToken(_ header: String?) -> String? {
        guard let (scheme, token) = credentials(header), scheme == .bearer else { return nil }
        return token
    }
}
