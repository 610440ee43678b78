import Foundation
import Hummingbird

/// `POST /device_authorization`: the RFC 8628 §3.1 device authorization endpoint. Authenticates the client as the
/// token endpoint does, and issues a device code with the ``OAuthTestServer/DeviceFlowSettings``. Its
/// `verification_uri` is the ``DeviceVerificationPage``, and `verification_uri_complete` that page with the code.
struct DeviceAuthorizationEndpoint: Sendable {
    let state: ServerState

    func respond(to request: Request) async throws -> Response {
        state.withLock { $0.flows.deviceStats.authorizationRequests += 1 }
        let form = try await FormPost.parameters(of: request)
        let configuration = state.configuration
        let (client, _) = try ClientAuthentication.client(of: request, form: form, configuration: configuration)
        if let allowed = client.allowedGrantTypes, !allowed.contains(DeviceCodeGrant.grantType) {
            return Reply.oauthError("unauthorized_client", "The client may not use the device authorization grant.")
        }
        let ungrantable = configuration.ungrantableItems(of: form["scope"])
        if !ungrantable.isEmpty {
            return Reply.oauthError("invalid_scope", "The scope \(ungrantable.joined(separator: " ")) cannot be granted.")
        }

        let deviceCode = TokenLedger.randomToken()
        let now = configuration.clock()
        let (settings, userCode) = state.withLock { contents in
            let settings = contents.flows.deviceFlow
            var userCode = settings.userCode ?? FlowState.randomUserCode()
            while settings.userCode == nil, contents.flows.deviceGrants.values.contains(where: { $0.userCode == userCode }) {
                userCode = FlowState.randomUserCode()
            }
            contents.flows.deviceGrants[deviceCode] = FlowState.DeviceGrant(
                userCode: userCode, clientID: client.id, scope: form["scope"],
                expiresAt: now.addingTimeInterval(TimeInterval(settings.expiresIn)))
            contents.flows.deviceStats.codesIssued += 1
            return (settings, userCode)
        }
        let verificationURI = "http://\(request.head.authority ?? configuration.host)\(DeviceVerificationPage.path)"
        var answer: [String: Any] = [
            "device_code": deviceCode,
            "user_code": userCode,
            "verification_uri": verificationURI,
            "expires_in": settings.expiresIn,
        ]
        if let interval = settings.interval { answer["interval"] = interval }
        if settings.sendsVerificationURIComplete {
            // Escaped: a test's user code (DeviceFlowSettings.userCode) may hold anything.
            answer["verification_uri_complete"] = verificationURI + "?user_code=" + Reply.formEscaped(userCode)
        }
        return Reply.json(answer, headers: [.cacheControl: "no-store"])
    }
}

/// The device code grant at the token endpoint (RFC 8628 §3.4, §3.5), after client authentication.
struct DeviceCodeGrant: Sendable {
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// What the token endpoint answers.
    enum Answer {
        case tokens(TokenLedger.Issued)
        case error(code: String, description: String, extras: [String: Int] = [:])
    }

    let state: ServerState

    /// Answers one poll: `slow_down` while the settings ask for it; `expired_token` past the code's expiry (or
    /// when the test expired it); the test's decision once its polls are counted down; else `authorization_pending`.
    /// A code that got its tokens, was denied or expired is gone: polling it again gives `invalid_grant`.
    /// `jkt` is the thumbprint of the request's DPoP proof key, which issued tokens are bound to (`nil`: bearer).
    func poll(form: [String: String], clientID: String, jkt: String?) -> Answer {
        let configuration = state.configuration
        let now = configuration.clock()
        return state.withLock { contents in
            contents.flows.deviceStats.polls += 1
            let answer = Self.answer(
                form: form, clientID: clientID, jkt: jkt, now: now, configuration: configuration, contents: &contents)
            let name: String
            switch answer {
            case .tokens: name = "tokens"
            case .error(let code, _, _): name = code
            }
            contents.flows.deviceStats.answers[name, default: 0] += 1
            return answer
        }
    }

    private static func answer(
        form: [String: String], clientID: String, jkt: String?, now: Date, configuration: OAuthTestServer.Configuration,
        contents: inout ServerState.Contents
    ) -> Answer {
        guard let deviceCode = form["device_code"] else {
            return .error(code: "invalid_request", description: "The device_code parameter is missing.")
        }
        guard var grant = contents.flows.deviceGrants[deviceCode] else {
            return .error(code: "invalid_grant", description: "The device code is not known.")
        }
        guard grant.clientID == clientID else {
            return .error(code: "invalid_grant", description: "The device code was issued to another client.")
        }
        if contents.flows.deviceFlow.slowDownPolls > 0 {
            contents.flows.deviceFlow.slowDownPolls -= 1
            let interval = contents.flows.deviceFlow.slowDownInterval
            return .error(code: "slow_down", description: "Poll less often.", extras: interval.map { ["interval": $0] } ?? [:])
        }
        if now >= grant.expiresAt {
            contents.flows.deviceGrants[deviceCode] = nil
            return .error(code: "expired_token", description: "The device code has expired.")
        }
        guard let decision = grant.decision, grant.pollsBeforeDecision == 0 else {
            if grant.decision != nil { grant.pollsBeforeDecision -= 1 }
            contents.flows.deviceGrants[deviceCode] = grant
            return .error(code: "authorization_pending", description: "The user has not decided yet.")
        }
        contents.flows.deviceGrants[deviceCode] = nil
        switch decision {
        case .approve(let subject):
            return .tokens(
                contents.ledger.issue(
                    subject: subject, clientID: clientID, scope: grant.scope, withRefreshToken: true, now: now,
                    lifetime: configuration.accessTokenLifetime, jkt: jkt))
        case .deny:
            return .error(code: "access_denied", description: "The user declined.")
        case .expire:
            return .error(code: "expired_token", description: "The device code has expired.")
        }
    }
}
