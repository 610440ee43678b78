import Foundation
import HTTPTypes
import JWTKit
import Logging
import TokenAuth

/// Validates OpenID Connect `id_token`s for one client of one issuer, and says who signed in.
///
/// ```swift
/// let verifier = try IDTokenVerifier(metadata: metadata, clientID: "my-desktop-app")
/// let identity = try await verifier.identity(from: response, nonce: nonce, userinfoEndpoint: metadata.userinfoEndpoint)
/// print("signed in as \(identity)")
/// ```
///
/// An `id_token` is accepted only when (OpenID Connect Core §3.1.3.7):
/// - it is a JWS signed with RS256/384/512, PS256/384/512, ES256/384/512 or EdDSA by a key of the issuer's key set
///   (`jwks_uri`); `none` and the HMAC algorithms (`HS256` …) are refused, whatever the key set says. jwt-kit
///   checks the signature; this type chooses the key and the algorithms;
/// - `iss` is exactly ``issuer``; `aud` contains ``clientID``; `azp`, when present, is ``clientID``, and must be
///   present when `aud` names other audiences too;
/// - `exp` is after now and `iat` not after now, each with ``allowedClockSkew`` of tolerance, by the injected wall
///   clock;
/// - `nonce` is the one the sign-in sent, when it sent one (a nonce in the token when none was sent is ignored).
///
/// **Keys.** The key set is fetched on first use and cached by every copy of this verifier, for at most
/// ``maximumKeyAge``. A token naming a `kid` the cached set lacks makes it fetch the set again once (the issuer
/// may have rotated its keys), unless it was fetched less than ``minimumRefetchInterval`` ago: tokens with made-up
/// key ids cannot make it fetch in a loop. Fetches refuse redirects (`HTTPRedirectPolicy.refuse`), accept at most
/// ``maximumDocumentSize`` bytes and only `https` (or `http` on loopback) URLs: a key set from elsewhere would let
/// anyone sign tokens.
///
/// Nothing here logs or describes a token, a nonce or an access token.
public struct IDTokenVerifier: Sendable {
    /// The largest key set or UserInfo answer accepted: 256 KiB.
    public static let maximumDocumentSize = 256 * 1024
    /// The least time between two fetches of the key set caused by an unknown `kid`: 60 s.
    public static let minimumRefetchInterval = Duration.seconds(60)
    /// How long a fetched key set is used before it is fetched again: one hour, so a key the issuer withdrew stops
    /// being trusted.
    public static let maximumKeyAge = Duration.seconds(3600)
    /// The algorithms accepted: asymmetric signatures only.
    public static let acceptedAlgorithms: Set<String> = [
        "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA",
    ]

    /// The issuer identifier the tokens' `iss` must equal, character for character.
    public let issuer: URL
    /// The client id the tokens must be issued to.
    public let clientID: String
    /// Where the issuer's key set is published.
    public let jwksURI: URL
    /// The tolerance for `exp` and `iat` against the wall clock.
    public let allowedClockSkew: Duration

    private let transport: any HTTPTransport
    private let wallClock: WallClock
    private let logger: Logger
    private let cache = JWKSCache()

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - issuer: The issuer identifier, exactly as its discovery document and its tokens give it.
    ///   - clientID: This app's client id.
    ///   - jwksURI: The issuer's key set.
    ///   - transport: How the key set and UserInfo are fetched. The default accepts at most
    ///     ``maximumDocumentSize`` bytes and waits at most 10 s for each answer.
    ///   - wallClock: Now, for `exp`, `iat` and the key cache.
    ///   - allowedClockSkew: The tolerance for `exp` and `iat`; 2 minutes by default.
    ///   - logger: Where fetches are logged (URLs without queries, statuses); never a token.
    public init(
        issuer: URL,
        clientID: String,
        jwksURI: URL,
        transport: any HTTPTransport = URLSessionTransport(
            maximumResponseBodySize: IDTokenVerifier.maximumDocumentSize, timeout: .seconds(10)),
        wallClock: @escaping WallClock = systemWallClock,
        allowedClockSkew: Duration = .seconds(120),
        logger: Logger = Logger(label: "TokenAuth.IDTokenVerifier")
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.jwksURI = jwksURI
        self.transport = transport
        self.wallClock = wallClock
        self.allowedClockSkew = allowedClockSkew
        self.logger = logger
    }

    /// A verifier for the issuer of discovered `metadata`.
    ///
    /// - Throws: ``SignInError/Code/jwksMisconfigured`` when the metadata has no `jwks_uri` or its issuer is not a URL.
    public init(
        metadata: AuthorizationServerMetadata,
        clientID: String,
        transport: any HTTPTransport = URLSessionTransport(
            maximumResponseBodySize: IDTokenVerifier.maximumDocumentSize, timeout: .seconds(10)),
        wallClock: @escaping WallClock = systemWallClock,
        allowedClockSkew: Duration = .seconds(120),
        logger: Logger = Logger(label: "TokenAuth.IDTokenVerifier")
    ) throws(SignInError) {
        guard let jwksURI = metadata.jwksURI else {
            throw .jwksMisconfigured("the issuer's metadata has no jwks_uri")
        }
        guard let issuer = URL(string: metadata.issuer) else {
            throw .jwksMisconfigured("the issuer \"\(SignInError.clean(metadata.issuer))\" is not a URL")
        }
        self.init(
            issuer: issuer, clientID: clientID, jwksURI: jwksURI, transport: transport, wallClock: wallClock,
            allowedClockSkew: allowedClockSkew, logger: logger)
    }

    /// A verifier for a stored client that records its issuer and `jwks_uri` (what discovery recorded), or `nil`
    /// when it records neither — what a refresh needs to validate new `id_token`s without discovering again.
    public init?(
        client: OAuthClient,
        transport: any HTTPTransport = URLSessionTransport(
            maximumResponseBodySize: IDTokenVerifier.maximumDocumentSize, timeout: .seconds(10)),
        wallClock: @escaping WallClock = systemWallClock,
        allowedClockSkew: Duration = .seconds(120),
        logger: Logger = Logger(label: "TokenAuth.IDTokenVerifier")
    ) {
        guard let issuer = client.issuer, let jwksURI = client.jwksURI else { return nil }
        self.init(
            issuer: issuer, clientID: client.clientID, jwksURI: jwksURI, transport: transport, wallClock: wallClock,
            allowedClockSkew: allowedClockSkew, logger: logger)
    }

    // MARK: - Validating

    /// Validates `idToken` and returns its claims.
    ///
    /// - Parameters:
    ///   - idToken: The `id_token` of a token response.
    ///   - nonce: The nonce sent with the authorization request, or `nil` when none was sent (the device flow, a
    ///     refresh): then any nonce in the token is ignored.
    /// - Throws: ``SignInError``, or `CancellationError`.
    public func verify(_ idToken: String, nonce: String?) async throws -> IDTokenClaims {
        let header: JWTHeader
        do {
            header = try DefaultJWTParser().parse([UInt8](idToken.utf8), as: HeaderProbe.self).header
        } catch {
            throw SignInError.malformedIDToken("it is not a signed JWT (JWS compact serialization)")
        }
        guard let alg = header.alg, Self.acceptedAlgorithms.contains(alg) else {
            throw SignInError.unsupportedAlgorithm(header.alg)
        }
        let kid = header.kid
        let fetchesBefore = await cache.completedFetches
        var keys = try await currentKeys()
        if let kid, keys.keys[kid] == nil {
            guard let refetched = try await cache.keys(
                after: keys, lacking: kid, now: wallClock(), interval: Self.minimumRefetchInterval, fetch: fetcher)
            else {
                // A set fetched for this very token lacks the key: the issuer does not publish it. One fetched
                // earlier, too recently to fetch again, may just predate the key: the check can succeed later.
                if await cache.completedFetches > fetchesBefore { throw SignInError.unknownKey(kid) }
                throw SignInError.keyNotYetFetched(kid)
            }
            keys = refetched
            guard keys.keys[kid] != nil else { throw SignInError.unknownKey(kid) }
        }
        if let kid, let jwk = keys.keys[kid] {
            try Self.check(jwk, canVerify: alg, kid: kid)
        }

        let payload: IDTokenPayload
        do {
            payload = try await keys.collection.verify(idToken, as: IDTokenPayload.self, iteratingKeys: kid == nil)
        } catch let error as JWTError {
            switch error.errorType {
            case .malformedToken:
                throw SignInError.malformedIDToken("its claims are not readable, or iss, sub, aud, exp or iat is missing")
            case .signatureVerificationFailed:
                throw SignInError.badSignature(kid.map { "with key \"\(SignInError.clean($0))\"" } ?? "with any key")
            default:
                throw SignInError.badSignature("jwt-kit: \(error.errorType)")
            }
        } catch {
            throw SignInError.badSignature("\(type(of: error))")
        }
        let claims = IDTokenClaims(payload)
        try check(claims, nonce: nonce)
        return claims
    }

    /// The claim checks after the signature, against the wall clock.
    private func check(_ claims: IDTokenClaims, nonce: String?) throws(SignInError) {
        guard claims.issuer == issuer.absoluteString else {
            throw .wrongIssuer(expected: issuer.absoluteString, found: claims.issuer)
        }
        guard !claims.subject.isEmpty else { throw .malformedIDToken("its sub is empty") }
        guard claims.audiences.contains(clientID) else {
            throw .wrongAudience("aud names \(Self.list(claims.audiences)), not \"\(clientID)\"")
        }
        if let azp = claims.authorizedParty {
            guard azp == clientID else { throw .wrongAuthorizedParty(azp) }
        } else if claims.audiences.count > 1 {
            throw .wrongAudience("aud names several audiences (\(Self.list(claims.audiences))) and there is no azp")
        }
        let now = wallClock()
        let skew = allowedClockSkew.timeInterval
        guard claims.expiresAt.timeIntervalSince(now) > -skew else {
            throw .idTokenExpired("at \(claims.expiresAt.formatted(.iso8601)), now is \(now.formatted(.iso8601))")
        }
        guard claims.issuedAt.timeIntervalSince(now) <= skew else {
            throw .issuedInFuture("at \(claims.issuedAt.formatted(.iso8601)), now is \(now.formatted(.iso8601))")
        }
        if let nonce {
            guard let found = claims.nonce else { throw .nonceMismatch("the token has none") }
            guard found == nonce else { throw .nonceMismatch("the token carries another") }
        }
    }

    private static func list(_ audiences: [String]) -> String {
        audiences.isEmpty ? "nothing" : audiences.map { "\"\(SignInError.clean($0))\"" }.joined(separator: ", ")
    }

    /// Refuses a key that cannot make a signature of `alg`: another key type, or a key published for another
    /// algorithm (jwt-kit would verify with the key's own algorithm, whatever the header says).
    private static func check(_ jwk: JWK, canVerify alg: String, kid: String) throws(SignInError) {
        let family: JWK.KeyType
        switch alg.prefix(2) {
        case "RS", "PS": family = .rsa
        case "ES": family = .ecdsa
        default: family = .octetKeyPair
        }
        guard jwk.keyType == family else {
            throw .badSignature("key \"\(SignInError.clean(kid))\" is an \(jwk.keyType.rawValue) key, the token says \(alg)")
        }
        if let keyAlg = jwk.algorithm, keyAlg.rawValue != alg {
            throw .badSignature("key \"\(SignInError.clean(kid))\" is for \(keyAlg.rawValue), the token says \(alg)")
        }
    }

    // MARK: - Identity

    /// Validates the `id_token` of a sign-in's token response and returns who signed in.
    ///
    /// The display name is the token's `preferred_username`, `email` or `name`. When it has none and
    /// `userinfoEndpoint` is given, the UserInfo endpoint is asked with the response's access token. Policy:
    /// a UserInfo answer about another subject fails the sign-in (``SignInError/Code/userinfoSubjectMismatch``: the
    /// server contradicts itself about who signed in); any other UserInfo failure (unreachable, refused, not JSON)
    /// leaves the identity without a display name — the `id_token` alone proved who it is — and is logged at
    /// notice level. Call ``displayName(fromUserinfo:accessToken:subject:)`` yourself for a strict lookup.
    ///
    /// - Parameters:
    ///   - response: The token response of the sign-in (authorization code, device code or password grant).
    ///   - nonce: The nonce sent with the authorization request, or `nil` when none was sent.
    ///   - userinfoEndpoint: The issuer's UserInfo endpoint, e.g. ``AuthorizationServerMetadata/userinfoEndpoint``.
    /// - Throws: ``SignInError`` — ``SignInError/Code/missingIDToken`` when the response has no `id_token`.
    public func identity(from response: TokenResponse, nonce: String?, userinfoEndpoint: URL?) async throws -> Identity {
        guard let idToken = response.idToken else { throw SignInError.missingIDToken }
        let claims = try await verify(idToken, nonce: nonce)
        var displayName = claims.displayName
        if displayName == nil, let userinfoEndpoint {
            do {
                displayName = try await self.displayName(
                    fromUserinfo: userinfoEndpoint, accessToken: response.accessToken, subject: claims.subject)
            } catch let error as SignInError where error.code == .userinfoSubjectMismatch {
                throw error
            } catch let error as CancellationError {
                throw error
            } catch {
                logger.notice(
                    "UserInfo gave no display name; keeping the identity without one",
                    metadata: ["error": "\(LogRedaction.error(error))"])
            }
        }
        return Identity(issuer: issuer, subject: claims.subject, displayName: displayName)
    }

    /// Validates the `id_token` of a refresh's token response against the identity stored before it.
    ///
    /// OpenID Connect Core §12.2: a refreshed `id_token` must name the same `iss` and `sub`. Without an
    /// `id_token` (servers may omit it on refresh) the previous identity is returned unchanged. No nonce is
    /// expected. The display name is the new token's, or the previous one when it has none; UserInfo is not asked.
    ///
    /// - Throws: ``SignInError`` — ``SignInError/Code/subjectChanged`` when the token is valid but for another account
    ///   (or `previous` is of another issuer than this verifier's).
    public func identity(afterRefresh response: TokenResponse, keeping previous: Identity) async throws -> Identity {
        guard let idToken = response.idToken else { return previous }
        guard previous.issuer.absoluteString == issuer.absoluteString else {
            throw SignInError.subjectChanged("the stored identity is of another issuer than this verifier's")
        }
        let claims = try await verify(idToken, nonce: nil)
        guard claims.subject == previous.subject else {
            throw SignInError.subjectChanged("its sub is not the stored identity's")
        }
        return Identity(issuer: issuer, subject: claims.subject, displayName: claims.displayName ?? previous.displayName)
    }

    /// Asks the UserInfo endpoint (OpenID Connect Core §5.3) for a display name: `preferred_username`, `email` or
    /// `name`, or `nil` when the answer has none.
    ///
    /// - Parameters:
    ///   - endpoint: The UserInfo endpoint; it must be `https` (or `http` on loopback), since it gets the token.
    ///   - accessToken: The access token of the sign-in, sent as a bearer token.
    ///   - subject: The `id_token`'s `sub`, which the answer's `sub` must equal.
    /// - Throws: ``SignInError`` — ``SignInError/Code/userinfoSubjectMismatch``, ``SignInError/Code/userinfoInvalid`` or
    ///   ``SignInError/Code/userinfoUnavailable``.
    public func displayName(fromUserinfo endpoint: URL, accessToken: String, subject: String) async throws -> String? {
        guard endpoint.canCarryCredentials else {
            throw SignInError.userinfoInvalid("refused to send the access token to \(endpoint.scheme ?? "?")://\(endpoint.host ?? "") over plain HTTP")
        }
        let request = HTTPRequest(
            method: .get, url: endpoint,
            headerFields: [.accept: "application/json", .authorization: "Bearer \(accessToken)"])
        let (response, body) = try await get(
            request, tooLarge: .userinfoInvalid("its answer is larger than \(Self.maximumDocumentSize / 1024) KiB")
        ) { SignInError.userinfoUnavailable(statusCode: $0, $1) }
        let status = response.status.code
        switch status {
        case 200...299: break
        case 408, 429, 500...599: throw SignInError.userinfoUnavailable(statusCode: status, "the server is not answering normally")
        case 300...399: throw SignInError.userinfoInvalid(statusCode: status, "it redirects; redirects are not followed")
        default: throw SignInError.userinfoInvalid(statusCode: status, "it refused the request")
        }
        guard body.count <= Self.maximumDocumentSize else {
            throw SignInError.userinfoInvalid("its answer is larger than \(Self.maximumDocumentSize / 1024) KiB")
        }
        let answer: UserinfoBody
        do {
            answer = try JSONDecoder().decode(UserinfoBody.self, from: body)
        } catch {
            throw SignInError.userinfoInvalid(statusCode: status, "its answer is not a JSON object with a sub")
        }
        guard answer.sub == subject else { throw SignInError.userinfoSubjectMismatch }
        return answer.preferredUsername ?? answer.email ?? answer.name
    }

    // MARK: - Keys

    /// Fetches the key set now if none is cached (or the cached one is older than ``maximumKeyAge``).
    ///
    /// `AuthManager` calls it before it spends a refresh token, so that an unreachable key set fails the refresh
    /// before the server rotates the refresh token, rather than after, when the new tokens could not be validated.
    /// - Throws: ``SignInError/Code/jwksUnavailable`` or ``SignInError/Code/jwksMisconfigured``.
    public func prepare() async throws {
        _ = try await currentKeys()
    }

    private func currentKeys() async throws -> JWKSCache.Keys {
        try await cache.keys(now: wallClock(), maximumAge: Self.maximumKeyAge, fetch: fetcher)
    }

    /// The fetch the cache runs, capturing only sendable values.
    private var fetcher: @Sendable () async throws -> JWKSCache.Keys {
        let (jwksURI, transport, wallClock, logger) = (jwksURI, transport, wallClock, logger)
        return { try await Self.fetchKeys(from: jwksURI, transport: transport, wallClock: wallClock, logger: logger) }
    }

    private static func fetchKeys(
        from url: URL, transport: any HTTPTransport, wallClock: WallClock, logger: Logger
    ) async throws -> JWKSCache.Keys {
        guard url.canCarryCredentials else {
            throw SignInError.jwksMisconfigured("\(url.absoluteString) is not https (http is allowed only on loopback)")
        }
        let fetchedAt = wallClock()
        logger.debug("fetching the issuer's keys", metadata: ["url": "\(url.absoluteString)"])
        let request = HTTPRequest(method: .get, url: url, headerFields: [.accept: "application/json"])
        let (response, body) = try await send(
            request, transport: transport,
            tooLarge: .jwksMisconfigured("\(url.absoluteString) answers with more than \(maximumDocumentSize / 1024) KiB")
        ) { SignInError.jwksUnavailable(statusCode: $0, $1) }
        let status = response.status.code
        switch status {
        case 200...299: break
        case 408, 429, 500...599:
            throw SignInError.jwksUnavailable(statusCode: status, "\(url.absoluteString) is not answering normally")
        case 300...399:
            throw SignInError.jwksMisconfigured(statusCode: status, "\(url.absoluteString) redirects; redirects are not followed")
        default:
            throw SignInError.jwksMisconfigured(statusCode: status, "\(url.absoluteString) has no key set")
        }
        guard body.count <= maximumDocumentSize else {
            throw SignInError.jwksMisconfigured("\(url.absoluteString) answers with more than \(maximumDocumentSize / 1024) KiB")
        }
        let set: LenientKeySet
        do {
            set = try JSONDecoder().decode(LenientKeySet.self, from: body)
        } catch {
            throw SignInError.jwksMisconfigured("\(url.absoluteString) is not a JWK Set")
        }
        let collection = JWTKeyCollection()
        var keys: [String: JWK] = [:]
        for (index, key) in set.keys.enumerated() {
            var jwk = key
            let kid = jwk.keyIdentifier?.string ?? "#\(index)"
            jwk.keyIdentifier = JWKIdentifier(string: kid)
            guard keys[kid] == nil else { continue }
            do {
                try await collection.add(jwk: jwk)
                keys[kid] = jwk
            } catch {
                // A key jwt-kit cannot use (an encryption key, another curve) is left out; the others still work.
                logger.debug("skipping an unusable key", metadata: ["kid": "\(SignInError.clean(kid))"])
            }
        }
        guard !keys.isEmpty else {
            throw SignInError.jwksMisconfigured("\(url.absoluteString) has no usable signing key")
        }
        return JWKSCache.Keys(collection: collection, keys: keys, fetchedAt: fetchedAt)
    }

    private func get(
        _ request: HTTPRequest, tooLarge: SignInError, failure: (Int?, String) -> SignInError
    ) async throws -> (HTTPResponse, Data) {
        try await Self.send(request, transport: transport, tooLarge: tooLarge, failure: failure)
    }

    /// One request without following redirects, with transport failures turned into `failure` (transient).
    private static func send(
        _ request: HTTPRequest, transport: any HTTPTransport, tooLarge: SignInError,
        failure: (Int?, String) -> SignInError
    ) async throws -> (HTTPResponse, Data) {
        let host = request.authority ?? "the server"
        do {
            return try await transport.send(request, body: nil, redirects: .refuse)
        } catch let error as TokenAuthError {
            if error.code == .responseTooLarge { throw tooLarge }
            throw failure(nil, "\(host): \(error.code == .timedOut ? "no answer in time" : "the connection failed")")
        } catch let error as CancellationError {
            throw error
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw failure(nil, "\(host): \(type(of: error))")
        }
    }
}

/// A JWK Set whose keys jwt-kit cannot read (another key type, an unknown algorithm) are left out rather than
/// making the whole set unreadable.
private struct LenientKeySet: Decodable {
    var keys: [JWK]

    private enum CodingKeys: String, CodingKey { case keys }

    private struct MaybeKey: Decodable {
        var key: JWK?
        init(from decoder: any Decoder) throws { key = try? JWK(from: decoder) }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        keys = try container.decode([MaybeKey].self, forKey: .keys).compactMap(\.key)
    }
}

/// The members of a UserInfo answer this library reads.
private struct UserinfoBody: Decodable {
    var sub: String
    var preferredUsername: String?
    var email: String?
    var name: String?

    private enum CodingKeys: String, CodingKey {
        case sub, email, name
        case preferredUsername = "preferred_username"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sub = try container.decode(String.self, forKey: .sub)
        func optional(_ key: CodingKeys) -> String? {
            guard let value = try? container.decodeIfPresent(String.self, forKey: key), !value.isEmpty else { return nil }
            return value
        }
        preferredUsername = optional(.preferredUsername)
        email = optional(.email)
        name = optional(.name)
    }
}
