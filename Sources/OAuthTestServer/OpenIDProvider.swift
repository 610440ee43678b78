import Foundation
import Hummingbird
import JWTKit

/// The OpenID Connect part of the server: `id_token`s for token responses, `GET /jwks` and `/userinfo`.
///
/// ``idToken(subject:clientID:nonce:issuer:)`` is the one place `id_token`s are made: every grant that returns
/// tokens for a user calls it (through ``TokenEndpoint``), with the nonce it recorded, if any.
struct OpenIDProvider: Sendable {
    let state: ServerState

    /// The issuer the discovery document names for a request to `authority` (`HOST:PORT`), without the
    /// ``OAuthTestServer/DiscoverySettings/advertisedIssuer`` fault: the issuer the server signs as.
    func issuer(authority: String?) -> String {
        let path = state.withLock { $0.flows.discovery.issuerPath }
        return "http://\(authority ?? state.configuration.host)" + path
    }

    /// A signed `id_token` for `subject` (the user name the grant is for), to `clientID`, applying the next pending
    /// ``OAuthTestServer/IDTokenFault`` and counting it in ``OAuthTestServer/Stats/idTokensIssued``.
    func idToken(subject: String, clientID: String, nonce: String?, issuer: String) async -> String {
        let (settings, fault, discovery) = state.withLock { contents in
            contents.stats.idTokensIssued += 1
            let fault = contents.faults.idTokenFaults.isEmpty ? nil : contents.faults.idTokenFaults.removeFirst()
            return (contents.openID, fault, contents.flows.discovery)
        }
        var claims = claims(user: subject, clientID: clientID, nonce: nonce, issuer: issuer, settings: settings)
        if let tenants = discovery.tenantsByUser {
            let tenant = tenants[subject] ?? OAuthTestServer.DiscoverySettings.consumerTenant
            claims.tid = tenant
            claims.iss = String(issuer.dropLast(discovery.issuerPath.count)) + discovery.issuerPath(forTenant: tenant)
        }
        var signer = settings.signer
        let hour: TimeInterval = 3600
        switch fault {
        case nil: break
        case .badSignature: signer = .foreignKey
        case .unknownKey: signer = .unknownKey
        case .algNone: signer = .none
        case .hmac: signer = .hs256
        case .wrongAudience: claims.aud = ["another-client"]; claims.azp = nil
        case .extraAudienceWithoutAuthorizedParty: claims.aud = [clientID, "another-client"]; claims.azp = nil
        case .wrongAuthorizedParty: claims.azp = "another-client"
        case .wrongIssuer: claims.iss = "https://issuer.invalid"
        case .expired: claims.exp = claims.iat.addingTimeInterval(-hour); claims.iat = claims.exp.addingTimeInterval(-600)
        case .issuedInFuture: claims.iat = claims.iat.addingTimeInterval(hour); claims.exp = claims.iat.addingTimeInterval(600)
        case .wrongNonce: claims.nonce = "another-nonce"
        case .changedSubject: claims.sub = OAuthTestServer.subjectIdentifier(ofUser: subject + "-other")
        }
        return await sign(claims, with: signer)
    }

    /// The right claims for `user` and `clientID` now, by the server's clock.
    func claims(
        user: String, clientID: String, nonce: String?, issuer: String, settings: OAuthTestServer.OpenIDSettings
    ) -> OAuthTestServer.MintedIDTokenClaims {
        let now = state.configuration.clock()
        let lifetime = settings.idTokenLifetime.components
        var claims = OAuthTestServer.MintedIDTokenClaims(
            iss: issuer, sub: OAuthTestServer.subjectIdentifier(ofUser: user), aud: [clientID], azp: clientID,
            exp: now.addingTimeInterval(TimeInterval(lifetime.seconds)), iat: now, nonce: nonce)
        if settings.profileInIDToken {
            claims.preferredUsername = user
            claims.email = Self.email(of: user)
            claims.name = user.capitalized
        }
        return claims
    }

    /// `claims` signed as `signer` says.
    func sign(_ claims: OAuthTestServer.MintedIDTokenClaims, with signer: OAuthTestServer.IDTokenSigner) async -> String {
        let keys = await state.signingKeys()
        let payload = MintedPayload(claims: claims)
        do {
            switch signer {
            case .rs256:
                return try await keys.published.sign(payload, kid: JWKIdentifier(string: keys.rsaKeyID), header: ["alg": "RS256", "typ": "JWT"])
            case .es256:
                return try await keys.published.sign(payload, kid: JWKIdentifier(string: keys.ecKeyID), header: ["alg": "ES256", "typ": "JWT"])
            case .foreignKey:
                return try await keys.foreign.sign(payload, kid: JWKIdentifier(string: keys.rsaKeyID), header: ["alg": "RS256", "typ": "JWT"])
            case .unknownKey:
                return try await keys.foreign.sign(payload, kid: "unknown-1", header: ["alg": "RS256", "typ": "JWT"])
            case .none:
                return try await keys.foreign.sign(payload, kid: "none", header: ["alg": "none", "typ": "JWT"])
            case .hs256:
                return try await keys.foreign.sign(payload, kid: "hs256", header: ["alg": "HS256", "typ": "JWT"])
            }
        } catch {
            preconditionFailure("the test server could not sign an id_token: \(error)")
        }
    }

    static func email(of user: String) -> String { "\(user)@example.com" }

    // MARK: - Endpoints

    /// `GET /jwks`: the published keys; `503` while ``OAuthTestServer/Faults/jwksUnavailable`` lasts.
    func jwks(_ request: Request) async -> Response {
        let unavailable = state.withLock { contents in
            contents.stats.jwksRequests += 1
            guard contents.faults.jwksUnavailable > 0 else { return false }
            contents.faults.jwksUnavailable -= 1
            return true
        }
        guard request.method == .get else {
            return Reply.methodNotAllowed(.get)
        }
        if unavailable {
            return Reply.bytes(Data("Service Unavailable".utf8), contentType: "text/plain", status: .serviceUnavailable, headers: [:])
        }
        return Reply.bytes(await state.signingKeys().jwks, contentType: "application/json", status: .ok, headers: [:])
    }

    /// `GET` or `POST /userinfo` (OpenID Connect Core §5.3): the profile of the access token's user.
    func userinfo(_ request: Request) -> Response {
        let mismatch = state.withLock { contents in
            contents.stats.userinfoRequests += 1
            guard contents.faults.userinfoSubjectMismatches > 0 else { return false }
            contents.faults.userinfoSubjectMismatches -= 1
            return true
        }
        guard let token = ProtectedResource.bearerToken(request.headers[.authorization]) else {
            return Reply.bearerChallenge(status: .unauthorized, error: nil, description: nil)
        }
        let now = state.configuration.clock()
        guard case .success(let record) = state.withLock({ $0.ledger.validate(accessToken: token, now: now) }) else {
            return Reply.bearerChallenge(status: .unauthorized, error: "invalid_token", description: "The access token is not valid.")
        }
        let settings = state.withLock { $0.openID }
        let user = record.subject
        var body: [String: Any] = [
            "sub": OAuthTestServer.subjectIdentifier(ofUser: mismatch ? user + "-other" : user)
        ]
        if settings.profileInUserinfo {
            body["preferred_username"] = user
            body["email"] = Self.email(of: user)
            body["name"] = user.capitalized
        }
        return Reply.json(body)
    }
}

/// Minted claims as a jwt-kit payload.
private struct MintedPayload: JWTPayload {
    var claims: OAuthTestServer.MintedIDTokenClaims

    init(claims: OAuthTestServer.MintedIDTokenClaims) { self.claims = claims }
    init(from decoder: any Decoder) throws { claims = try OAuthTestServer.MintedIDTokenClaims(from: decoder) }
    func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension OAuthTestServer {
    // MARK: - OpenID Connect

    /// The key set, `/jwks`.
    package var jwksURI: URL { url("/jwks") }

    /// The UserInfo endpoint, `/userinfo`.
    package var userinfoEndpoint: URL { url("/userinfo") }

    /// How `id_token`s are made and what UserInfo answers. Setting it takes effect with the next request.
    package var openID: OpenIDSettings {
        get { state[\.openID] }
        set { state[\.openID] = newValue }
    }

    /// The `sub` of the user `name` in `id_token`s and UserInfo: stable, and not the user name.
    package static func subjectIdentifier(ofUser name: String) -> String {
        "sub-\(name)"
    }

    /// The claims of a correct `id_token` for `user` to `clientID` now, by the server's clock: start here to mint
    /// tokens with ``mintIDToken(_:signer:)``.
    package func idTokenClaims(user: String, clientID: String, nonce: String? = nil) -> MintedIDTokenClaims {
        let provider = OpenIDProvider(state: state)
        return provider.claims(
            user: user, clientID: clientID, nonce: nonce, issuer: issuer.absoluteString, settings: openID)
    }

    /// An `id_token` with exactly `claims`, signed as `signer` says. Counts nothing.
    package func mintIDToken(_ claims: MintedIDTokenClaims, signer: IDTokenSigner = .rs256) async -> String {
        await OpenIDProvider(state: state).sign(claims, with: signer)
    }

    /// Replaces the published RSA key with a new one under the next `kid` (`rs256-2` …), as a provider rotating
    /// its signing key does; `id_token`s signed RS256 use the new key from now on.
    package func rotateSigningKey() async {
        let current = await state.signingKeys()
        let rotated = await current.rotated()
        state.withLock { $0.signingKeys = rotated }
    }
}
