import Foundation
import Hummingbird

/// `POST /token`: the RFC 6749 §3.2 token endpoint with the `refresh_token`, `client_credentials` and `password`
/// grants, rotating refresh tokens with reuse detection, and the faults of ``OAuthTestServer/Faults``.
///
/// A request with a valid DPoP proof (RFC 9449 §5) gets tokens bound to the proof's key, `token_type` `DPoP`; an
/// invalid proof answers `invalid_dpop_proof` (status ``OAuthTestServer/Configuration/dpopProofRefusalStatus``) and
/// spends nothing; with ``OAuthTestServer/Configuration/dpopNonces`` a proof without the current nonce answers
/// `use_dpop_nonce`, and every answer carries `DPoP-Nonce`.
struct TokenEndpoint: Sendable {
    let state: ServerState

    func respond(to request: Request) async throws -> Response {
        let acceptsJSON = request.headers[values: .accept].contains { $0.lowercased().contains("application/json") }
        let form = switch state.configuration.tokenAnswers {
        case .json: false
        case .formUnlessJSONAccepted: !acceptsJSON
        case .form: true
        }
        var statuses = state.configuration.tokenErrorStatuses
        if statuses["invalid_dpop_proof"] == nil { statuses["invalid_dpop_proof"] = state.configuration.dpopProofRefusalStatus }
        let response: Response
        do {
            response = try await Reply.$formEncodesOAuthAnswers.withValue(form) {
                try await Reply.$oauthErrorStatuses.withValue(statuses) { try await answer(request) }
            }
        } catch let refused as Refused where state.configuration.dpopNonces {
            response = refused.reply
        }
        guard state.configuration.dpopNonces else { return response }
        return Reply.addingDPoPNonce(state.withLock { $0.dpop.nonce }, to: response)
    }

    private func answer(_ request: Request) async throws -> Response {
        state.withLock { $0.stats.tokenRequests += 1 }
        let form = try await FormPost.parameters(of: request)
        let grantType = form["grant_type"]
        // The issuer of id_tokens: what the discovery document names for this request's Host.
        let issuer = OpenIDProvider(state: state).issuer(authority: request.head.authority)
        countGrant(grantType)
        await state.hold.pass()

        let latency = state.withLock { $0.faults.tokenLatencyMilliseconds }
        if latency > 0 {
            try await Task.sleep(for: .milliseconds(latency))
        }
        if let fault = state.withLock({ $0.faults.takeTokenFault() }) {
            return reply(for: fault)
        }

        let configuration = state.configuration
        let (client, method) = try ClientAuthentication.client(of: request, form: form, configuration: configuration)
        state.withLock { $0.stats.clientAuthentications[method.rawValue, default: 0] += 1 }

        guard let grantType else {
            return Reply.oauthError("invalid_request", "The grant_type parameter is missing.")
        }
        let grantTypes = ["refresh_token", "client_credentials", "password", DeviceCodeGrant.grantType, AuthorizationCodeGrant.grantType]
        guard grantTypes.contains(grantType) else {
            return Reply.oauthError("unsupported_grant_type", "The grant type \(grantType) is not supported.")
        }
        if let allowed = client.allowedGrantTypes, !allowed.contains(grantType) {
            return Reply.oauthError("unauthorized_client", "The client may not use the \(grantType) grant.")
        }
        let ungrantable = configuration.ungrantableItems(of: form["scope"])
        if !ungrantable.isEmpty {
            return Reply.oauthError("invalid_scope", "The scope \(ungrantable.joined(separator: " ")) cannot be granted.")
        }
        let jkt: String?
        switch await DPoPCheck(state: state).check(request, accessToken: nil) {
        case .absent:
            if client.requiresDPoP { return refuseProof("The client \(client.id) must send a DPoP proof with its token requests.") }
            jkt = nil
        case .valid(let proof):
            jkt = proof.thumbprint
        case .refused(let description):
            return refuseProof(description)
        case .nonceNeeded(let description):
            state.withLock { $0.stats.dpopNonceChallenges += 1 }
            return Reply.oauthError("use_dpop_nonce", description)
        }

        switch grantType {
        case AuthorizationCodeGrant.grantType:
            switch AuthorizationCodeGrant(state: state).exchange(form: form, clientID: client.id, jkt: jkt) {
            case .tokens(let issued, let nonce): return await success(issued, issuer: issuer, nonce: nonce)
            case .error(let code, let description): return Reply.oauthError(code, description)
            }
        case DeviceCodeGrant.grantType:
            switch DeviceCodeGrant(state: state).poll(form: form, clientID: client.id, jkt: jkt) {
            case .tokens(let issued): return await success(issued, issuer: issuer)
            case .error(let code, let description, let extras): return Reply.oauthError(code, description, extras: extras)
            }
        case "refresh_token":
            return await refreshGrant(form: form, client: client, issuer: issuer, jkt: jkt)
        case "client_credentials":
            let issued = state.withLock {
                $0.ledger.issue(
                    subject: client.id,
                    clientID: client.id,
                    scope: form["scope"],
                    withRefreshToken: configuration.refreshTokensForClientCredentials,
                    now: configuration.clock(),
                    lifetime: configuration.accessTokenLifetime,
                    jkt: jkt
                )
            }
            return await success(issued, issuer: issuer)
        default:
            guard let username = form["username"], let password = form["password"] else {
                return Reply.oauthError("invalid_request", "The password grant needs username and password.")
            }
            guard configuration.users[username] == password else {
                return Reply.oauthError("invalid_grant", "The username or password is wrong.")
            }
            let issued = state.withLock {
                $0.ledger.issue(
                    subject: username,
                    clientID: client.id,
                    scope: form["scope"],
                    withRefreshToken: true,
                    now: configuration.clock(),
                    lifetime: configuration.accessTokenLifetime,
                    jkt: jkt
                )
            }
            return await success(issued, issuer: issuer)
        }
    }

    private func refreshGrant(
        form: [String: String], client: OAuthTestServer.RegisteredClient, issuer: String, jkt: String?
    ) async -> Response {
        guard let refreshToken = form["refresh_token"] else {
            return Reply.oauthError("invalid_request", "The refresh_token parameter is missing.")
        }
        let configuration = state.configuration
        var lost = false
        let outcome: Result<TokenLedger.Issued, TokenLedger.RefreshFailure>? = state.withLock { contents in
            if contents.faults.takeInvalidGrant() { return nil }
            let now = configuration.clock()
            if let age = contents.ledger.age(ofRefreshToken: refreshToken, now: now),
                age < configuration.accessTokenLifetime.timeInterval / 4
            {
                contents.stats.earlyRefreshes += 1
            }
            let result = contents.ledger.refresh(
                refreshToken,
                clientID: client.id,
                requestedScope: form["scope"],
                rotate: configuration.rotateRefreshTokens,
                now: now,
                lifetime: configuration.accessTokenLifetime,
                jkt: jkt
            )
            switch result {
            case .success:
                contents.stats.successfulRefreshes += 1
                lost = contents.faults.takeLostAnswer()
            case .failure(.reuseDetected): contents.stats.reuseDetections += 1
            case .failure: break
            }
            return result
        }
        if configuration.deadRefreshTokenAnswer == .emptyBadRequest {
            switch outcome {
            case nil, .failure(.unknown), .failure(.wrongClient), .failure(.reuseDetected), .failure(.revoked):
                return Reply.bytes(Data(), contentType: "text/plain", status: .badRequest, headers: [:])
            default: break
            }
        }
        switch outcome {
        case nil:
            return Reply.oauthError("invalid_grant", "The refresh token was refused (injected fault).")
        case .success where lost:
            return Reply.lostOnTheWay()
        case .success(let issued):
            return await success(issued, issuer: issuer)
        case .failure(.unknown):
            return Reply.oauthError("invalid_grant", "The refresh token is not known.")
        case .failure(.wrongClient):
            return Reply.oauthError("invalid_grant", "The refresh token was issued to another client.")
        case .failure(.reuseDetected):
            return Reply.oauthError("invalid_grant", "The refresh token was already used; every token of its grant is revoked.")
        case .failure(.revoked):
            return Reply.oauthError("invalid_grant", "The refresh token was revoked.")
        case .failure(.scopeTooWide):
            return Reply.oauthError("invalid_scope", "The requested scope exceeds the scope originally granted.")
        case .failure(.wrongDPoPKey):
            return refuseProof(
                jkt == nil
                    ? "The refresh token is bound to a DPoP key: the request needs a proof of that key."
                    : "The refresh token is bound to another DPoP key than the proof's.")
        }
    }

    /// `invalid_dpop_proof` (RFC 9449 §5), counted.
    private func refuseProof(_ description: String) -> Response {
        state.withLock { $0.stats.dpopProofRefusals += 1 }
        return Reply.oauthError("invalid_dpop_proof", description)
    }

    private func countGrant(_ grantType: String?) {
        state.withLock { contents in
            switch grantType {
            case "refresh_token": contents.stats.refreshGrants += 1
            case "client_credentials": contents.stats.clientCredentialsGrants += 1
            case "password": contents.stats.passwordGrants += 1
            default: break
            }
        }
    }

    /// The token response for `issued`, with an `id_token` when the granted scope includes `openid`, and
    /// `token_type` `DPoP` when its access token is bound to a DPoP key (else the configured type).
    ///
    /// - Parameter nonce: The nonce the grant recorded (the authorization request's), for the `id_token`.
    func success(_ issued: TokenLedger.Issued, issuer: String, nonce: String? = nil) async -> Response {
        let configuration = state.configuration
        var body: [String: Any] = [
            "access_token": issued.accessToken,
            "token_type": issued.jkt == nil ? configuration.tokenType : "DPoP",
        ]
        if issued.jkt != nil { state.withLock { $0.stats.dpopBoundGrants += 1 } }
        let lifetime = Int(configuration.accessTokenLifetime.components.seconds)
        switch configuration.expiresInStyle {
        case .number: body["expires_in"] = lifetime
        case .string: body["expires_in"] = String(lifetime)
        case .omitted: break
        }
        if let refreshToken = issued.refreshToken {
            body["refresh_token"] = refreshToken
            if let lifetime = configuration.refreshTokenLifetime {
                body["refresh_token_expires_in"] = Int(lifetime.components.seconds)
            }
        }
        if let scope = issued.scope {
            body["scope"] = TokenLedger.scopeItems(scope).joined(separator: configuration.scopeSeparator)
        }
        if let extended = configuration.extendedExpiresIn { body["ext_expires_in"] = Int(extended.components.seconds) }
        if TokenLedger.scopeItems(issued.scope).contains("openid") {
            body["id_token"] = await OpenIDProvider(state: state).idToken(
                subject: issued.subject, clientID: issued.clientID, nonce: nonce, issuer: issuer)
        }
        let headers: HTTPFields = [.cacheControl: "no-store", .pragma: "no-cache"]
        if let expiresIn = state.withLock({ $0.faults.expiresInJSON }) {
            // Spliced in as text, so the value reaches the client exactly as written (1e17 stays 1e17).
            // The body holds access_token, so the rest of it is `{"access_token":…}` without its opening brace.
            body["expires_in"] = nil
            let rest = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
            let json = #"{"expires_in":"# + expiresIn + "," + String(decoding: rest.dropFirst(), as: UTF8.self)
            return Reply.bytes(Data(json.utf8), contentType: "application/json", status: .ok, headers: headers)
        }
        return Reply.json(body, headers: headers)
    }

    private func reply(for fault: OAuthTestServer.TokenFault) -> Response {
        switch fault {
        case .serverError:
            return Reply.json(["error": "server_error", "error_description": "Injected failure."], status: .internalServerError)
        case .unavailable(let retryAfter):
            var headers: HTTPFields = [:]
            if let retryAfter { headers[.retryAfter] = retryAfter }
            return Reply.bytes(Data("Service Unavailable".utf8), contentType: "text/plain", status: .serviceUnavailable, headers: headers)
        case .malformed:
            return Reply.bytes(Data(#"{"access_token": "tru"#.utf8), contentType: "application/json", status: .ok, headers: [:])
        case .headerBreakingToken:
            return Reply.json(["access_token": "two words\r\nX-Injected: yes", "token_type": "Bearer", "expires_in": 3600])
        }
    }
}
