import Crypto
import Foundation
import Hummingbird

/// `GET /authorize`: the RFC 6749 §4.1.1 authorization endpoint, for native apps (RFC 8252): it checks the client,
/// the loopback redirect URI (any port), PKCE with S256 (RFC 7636; `plain` is refused) and passes `state` back. The
/// user's decision is ``OAuthTestServer/BrowserFlowSettings/outcome``; there is no login page.
struct AuthorizationEndpoint: Sendable {
    let state: ServerState

    func respond(to request: Request) -> Response {
        state.withLock { $0.flows.browserStats.authorizationRequests += 1 }
        guard request.method == .get else {
            return Reply.methodNotAllowed(.get)
        }
        let query = FormDecoding.pairs(request.uri.query ?? "") ?? []
        var parameters: [String: String] = [:]
        var repeated = false
        for (name, value) in query where parameters.updateValue(value, forKey: name) != nil { repeated = true }
        let settings = state.withLock { $0.flows.browser }

        // Errors that must not redirect (RFC 6749 §4.1.2.1): the redirect URI cannot be trusted.
        guard let clientID = parameters["client_id"], state.configuration.clients.contains(where: { $0.id == clientID })
        else { return refuse("The client_id is missing or unknown.") }
        guard let redirectURI = parameters["redirect_uri"], let redirect = URLComponents(string: redirectURI),
            Self.isLoopbackRedirect(redirect, registeredPaths: settings.registeredRedirectPaths)
        else { return refuse("The redirect_uri is missing, not a loopback http URI, or not registered.") }

        let issuer = "http://\(request.head.authority ?? state.configuration.host)"
            + state.withLock { $0.flows.discovery.issuerPath }
        let stateParameter = parameters["state"]
        func back(_ answer: [(String, String)]) -> Response {
            var answer = answer
            if let stateParameter { answer.append(("state", stateParameter)) }
            if settings.sendsIssuer { answer.append(("iss", settings.issuerOverride ?? issuer)) }
            var components = redirect
            var items = components.queryItems ?? []
            items += answer.map { URLQueryItem(name: $0.0, value: $0.1) }
            components.queryItems = items
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            return Response(status: .found, headers: [.location: components.string!, .cacheControl: "no-store"])
        }

        state.withLock {
            $0.flows.browserStats.lastNonce = parameters["nonce"]
            $0.flows.browserStats.lastChallengeMethod = parameters["code_challenge_method"]
        }
        if repeated { return back([("error", "invalid_request"), ("error_description", "A parameter is repeated.")]) }
        guard parameters["response_type"] == "code" else {
            return back([("error", "unsupported_response_type"), ("error_description", "Only code is supported.")])
        }
        guard let challenge = parameters["code_challenge"], !challenge.isEmpty else {
            return back([("error", "invalid_request"), ("error_description", "PKCE is required.")])
        }
        guard parameters["code_challenge_method"] == "S256" else {
            return back([("error", "invalid_request"), ("error_description", "Only the S256 PKCE method is accepted.")])
        }
        if !state.configuration.ungrantableItems(of: parameters["scope"]).isEmpty {
            return back([("error", "invalid_scope"), ("error_description", "The scope cannot be granted.")])
        }
        switch settings.outcome {
        case .deny:
            return back([("error", "access_denied"), ("error_description", "The user declined.")])
        case .error(let code, let description):
            return back([("error", code)] + (description.map { [("error_description", $0)] } ?? []))
        case .approve(let subject):
            let code = TokenLedger.randomToken()
            let expiresAt = state.configuration.clock().addingTimeInterval(TimeInterval(settings.codeLifetime))
            state.withLock {
                $0.flows.authorizationCodes[code] = FlowState.CodeGrant(
                    clientID: clientID, redirectURI: redirectURI, challenge: challenge, nonce: parameters["nonce"],
                    subject: subject, scope: parameters["scope"], expiresAt: expiresAt, dpopJKT: parameters["dpop_jkt"])
                $0.flows.browserStats.codesIssued += 1
            }
            return back([("code", code)])
        }
    }

    private func refuse(_ description: String) -> Response {
        state.withLock { $0.flows.browserStats.refusedWithoutRedirect += 1 }
        return Reply.bytes(
            Data("<html><body><h1>Bad request</h1><p>\(description)</p></body></html>".utf8),
            contentType: "text/html", status: .badRequest, headers: [:])
    }

    /// `http` on 127.0.0.1, `[::1]` or `localhost`, any port, no fragment, and a registered path when paths are
    /// registered.
    static func isLoopbackRedirect(_ uri: URLComponents, registeredPaths: Set<String>?) -> Bool {
        guard uri.scheme == "http", ["127.0.0.1", "[::1]", "::1", "localhost"].contains(uri.host ?? ""),
            uri.fragment == nil
        else { return false }
        if let registeredPaths { return registeredPaths.contains(uri.path) }
        return true
    }

    /// base64url(SHA-256(verifier)), RFC 7636 §4.6.
    static func challenge(ofVerifier verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// The `authorization_code` grant of the token endpoint (RFC 6749 §4.1.3): the code is single-use, bound to its
/// client and redirect URI, and needs the PKCE verifier of its challenge, and a DPoP proof of the key its
/// authorization request named in `dpop_jkt` (RFC 9449 §10), if it named one.
struct AuthorizationCodeGrant: Sendable {
    static let grantType = "authorization_code"
    let state: ServerState

    enum Outcome {
        case tokens(TokenLedger.Issued, nonce: String?)
        case error(String, String)
    }

    /// Exchanges the form's code.
    ///
    /// - Parameter jkt: The thumbprint of the request's DPoP proof key, which the tokens are bound to; `nil` without
    ///   a proof.
    func exchange(form: [String: String], clientID: String, jkt: String?) -> Outcome {
        let configuration = state.configuration
        return state.withLock { contents in
            contents.flows.browserStats.codeExchanges += 1
            guard let code = form["code"], let redirectURI = form["redirect_uri"], let verifier = form["code_verifier"]
            else { return .error("invalid_request", "code, redirect_uri and code_verifier are required.") }
            guard let grant = contents.flows.authorizationCodes.removeValue(forKey: code) else {
                return .error("invalid_grant", "The code is unknown or was already used.")
            }
            guard grant.expiresAt > configuration.clock() else { return .error("invalid_grant", "The code expired.") }
            guard grant.clientID == clientID else { return .error("invalid_grant", "The code was issued to another client.") }
            guard grant.redirectURI == redirectURI else {
                return .error("invalid_grant", "The redirect_uri differs from the authorization request's.")
            }
            guard AuthorizationEndpoint.challenge(ofVerifier: verifier) == grant.challenge else {
                contents.flows.browserStats.verifierMismatches += 1
                return .error("invalid_grant", "The code_verifier does not match the code_challenge.")
            }
            if let expected = grant.dpopJKT, expected != jkt {
                return .error("invalid_grant", "The authorization request's dpop_jkt is not the key of the DPoP proof.")
            }
            contents.flows.browserStats.successfulExchanges += 1
            let issued = contents.ledger.issue(
                subject: grant.subject, clientID: clientID, scope: grant.scope, withRefreshToken: true,
                now: configuration.clock(), lifetime: configuration.accessTokenLifetime, jkt: jkt)
            return .tokens(issued, nonce: grant.nonce)
        }
    }
}
