import Foundation
import Hummingbird

/// `/_admin/…`: what tests in another process use to read counters and drive faults.
///
/// - `GET /_admin/stats`: the ``OAuthTestServer/Stats`` as JSON; `POST /_admin/stats/reset` zeroes them.
/// - `GET /_admin/faults`: the pending ``OAuthTestServer/Faults``; `POST /_admin/faults` replaces them with the
///   JSON body (`{}` clears them) and answers with the new ones.
/// - `POST /_admin/revoke-access-tokens`: revokes every access token issued so far; answers `{"revoked": N}`.
/// - `POST /_admin/token-answers/hold` and `POST /_admin/token-answers/release`: ``OAuthTestServer/holdTokenAnswers()``
///   and ``OAuthTestServer/releaseTokenAnswers()``; `GET /_admin/token-answers` answers `{"held": N}`, the token
///   requests held now (a grant provably at the server, for a test in another process).
/// - `GET /_admin/requests`: the recently recorded requests.
/// - `POST /_admin/device/decide`, `GET /_admin/device/pending`: the device flow's decisions (see
///   ``DeviceAdmin``).
/// - `POST /_admin/dpop/rotate-nonce`: ``OAuthTestServer/rotateDPoPNonce()``, answers `{"nonce": "…"}`, the new
///   nonce; `GET /_admin/dpop/nonce` answers the current one the same way. The resource's empty DPoP `401`s are
///   the fault `emptyDPoPUnauthorizedAnswers` of `POST /_admin/faults`.
struct AdminEndpoints: Sendable {
    let state: ServerState

    func respond(to request: Request) async throws -> Response {
        switch (request.method, request.uri.path) {
        case (.get, "/_admin/stats"):
            return Reply.encoded(state.withLock { $0.stats })
        case (.post, "/_admin/stats/reset"):
            return Reply.encoded(state.withLock { contents in
                contents.stats = OAuthTestServer.Stats()
                return contents.stats
            })
        case (.get, "/_admin/faults"):
            return Reply.encoded(state.withLock { $0.faults })
        case (.post, "/_admin/faults"):
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            let faults: OAuthTestServer.Faults
            do {
                faults = try JSONDecoder().decode(OAuthTestServer.Faults.self, from: Data(body.readableBytesView))
            } catch {
                return Reply.json(["error": "invalid_request", "error_description": "The body is not a JSON fault plan: \(error)"], status: .badRequest)
            }
            state.withLock { $0.faults = faults }
            return Reply.encoded(faults)
        case (.post, "/_admin/revoke-access-tokens"):
            let revoked = state.withLock { $0.ledger.revokeAllAccessTokens() }
            return Reply.json(["revoked": revoked])
        case (.post, "/_admin/token-answers/hold"):
            state.hold.close()
            return Reply.json(["held": state.hold.waiting])
        case (.post, "/_admin/token-answers/release"):
            state.hold.open()
            return Reply.json(["held": state.hold.waiting])
        case (.get, "/_admin/token-answers"):
            return Reply.json(["held": state.hold.waiting])
        case (.get, "/_admin/requests"):
            return Reply.encoded(state.withLock { $0.recordedRequests })
        case (.post, "/_admin/device/decide"):
            return try await DeviceAdmin(state: state).decide(request)
        case (.get, "/_admin/device/pending"):
            return DeviceAdmin(state: state).pending()
        case (.post, "/_admin/dpop/rotate-nonce"):
            return Reply.json(["nonce": state.withLock { $0.dpop.rotateNonce() }])
        case (.get, "/_admin/dpop/nonce"):
            return Reply.json(["nonce": state.withLock { $0.dpop.nonce }])
        default:
            return Reply.json(["error": "not_found"], status: .notFound)
        }
    }
}
