import Foundation
import HTTPTypes
import Hummingbird

/// `/_admin/device/…`: the device flow's decisions for tests and scripts in another process, as a person makes
/// them on the verification page (``DeviceVerificationPage``), with the same rules.
///
/// - `POST /_admin/device/decide` with `{"user_code": "WDJB-MJHT", "approve": true, "subject": "grace"}`
///   (`subject` optional: the verification page's default user) decides the code, compared as RFC 8628 §6.1
///   suggests; `{"user_code": …, "expire": true}` makes it expire now instead (the next poll gets `expired_token`).
///   Answers `200 {"user_code", "decision": "approve"|"deny"|"expire", "subject"?}`; `404 not_found` when no live
///   device code has that user code, `410 expired_token` when it expired, `409 already_decided` when it was decided
///   before, `400 invalid_request` for a body that is not such an object.
/// - `GET /_admin/device/pending`: `{"user_codes": […]}`, the user codes waiting for a decision, sorted.
struct DeviceAdmin: Sendable {
    let state: ServerState

    /// The body of `POST /_admin/device/decide`.
    private struct Decision: Decodable {
        var userCode: String
        var approve: Bool?
        var expire: Bool?
        var subject: String?

        enum CodingKeys: String, CodingKey {
            case userCode = "user_code"
            case approve, expire, subject
        }
    }

    func decide(_ request: Request) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024)
        let asked: Decision
        do {
            asked = try JSONDecoder().decode(Decision.self, from: Data(body.readableBytesView))
        } catch {
            return Reply.json(
                ["error": "invalid_request",
                 "error_description": #"The body must be {"user_code": "…", "approve": true|false, "subject": "…"} or {"user_code": "…", "expire": true}: \#(error)"#],
                status: .badRequest)
        }
        let subject = asked.subject.flatMap { $0.isEmpty ? nil : $0 } ?? state.withLock(\.flows.defaultSubject)
        let decision: OAuthTestServer.DeviceDecision
        let named: String
        switch (asked.approve, asked.expire) {
        case (nil, true?): (decision, named) = (.expire, "expire")
        case (true?, nil), (true?, false?): (decision, named) = (.approve(subject: subject), "approve")
        case (false?, nil), (false?, false?): (decision, named) = (.deny, "deny")
        default:
            return Reply.json(
                ["error": "invalid_request", "error_description": #"Give either "approve" or "expire": true."#],
                status: .badRequest)
        }
        let now = state.configuration.clock()
        switch state.withLock({ $0.flows.decide(typedUserCode: asked.userCode, decision, now: now) }) {
        case .decided(let userCode):
            var answer: [String: Any] = ["user_code": userCode, "decision": named]
            if case .approve = decision { answer["subject"] = subject }
            return Reply.json(answer)
        case .unknown:
            return Reply.json(
                ["error": "not_found", "error_description": "No live device code has the user code \(asked.userCode)."],
                status: .notFound)
        case .expired:
            return Reply.json(
                ["error": "expired_token", "error_description": "The device code of \(asked.userCode) has expired."],
                status: .gone)
        case .alreadyDecided:
            return Reply.json(
                ["error": "already_decided", "error_description": "The user code \(asked.userCode) was decided before."],
                status: .conflict)
        }
    }

    func pending() -> Response {
        let now = state.configuration.clock()
        return Reply.json(["user_codes": state.withLock { $0.flows.userCodesAwaitingDecision(now: now) }])
    }
}
