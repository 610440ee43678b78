import Foundation
import HTTPTypes
import JWTKit
import Logging
import TokenAuth
import TokenAuthURLSession

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
/// - `iss` is exactly ``issuer`` — or, for an issuer whose metadata names a `{tenantid}` template
///   (``issuerTemplate``, Microsoft's `common` and `organizations`), the template filled with the token's own `tid`
///   claim, as Microsoft's libraries check it; `aud` contains ``clientID``; `azp`, when present, is ``clientID``, and must be
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
/// anyone sign tokens. Keys jwt-kit cannot use, and keys published with their private part, are left out. A token
/// without a `kid` is checked with each key that can make its `alg` (key type, curve and the key's own `alg`), and
/// only with those.
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

    /// The issuer identifier the tokens' `iss` must equal, character for character, unless ``issuerTemplate`` is
    /// set.
    public let issuer: URL
    /// The `{tenantid}` template each token's `iss` must be when filled with its `tid` claim, or `nil`: see
    /// ``AuthorizationServerMetadata/issuerTemplate``.
    public var issuerTemplate: String? { tenantTemplate?.text }
    /// The client id the tokens must be issued to.
    public let clientID: String
    /// Where the issuer's key set is published.
    public let jwksURI: URL
    /// The tolerance for `exp` and `iat` against the wall clock.
    public let allowedClockSkew: Duration

    /// The transport every initializer uses by default: at most ``maximumDocumentSize`` bytes per answer, and at most
    /// 10 s of waiting for each.
    @usableFromInline
    static func defaultTransport() -> any HTTPTransport {
        URLSessionHTTPTransport(maximumResponseBodySize: maximumDocumentSize, timeout: .seconds(10))
    }

    let transport: any HTTPTransport
    let wallClock: WallClock
    let logger: Logger
    let cache = JWKSCache()
    let tenantTemplate: TenantIssuerTemplate?

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - issuer: The issuer identifier, exactly as its discovery document and its tokens give it.
    ///   - clientID: This app's client id.
    ///   - jwksURI: The issuer's key set.
    ///   - issuerTemplate: The `{tenantid}` template the issuer's metadata names instead of `issuer`, if it does
    ///     (``AuthorizationServerMetadata/issuerTemplate``); `nil` to check `iss` against `issuer` alone. A text
    ///     that is not such a template (one placeholder standing for a path segment of an `https` URL) matches no
    ///     token.
    ///   - transport: How the key set and UserInfo are fetched. The default accepts at most
    ///     ``maximumDocumentSize`` bytes and waits at most 10 s for each answer.
    ///   - wallClock: Now, for `exp`, `iat` and the key cache.
    ///   - allowedClockSkew: The tolerance for `exp` and `iat`; 2 minutes by default.
    ///   - logger: Where fetches are logged (URLs without queries, statuses); never a token.
    public init(
        issuer: URL,
        clientID: String,
        jwksURI: URL,
        issuerTemplate: String? = nil,
        transport: any HTTPTransport = IDTokenVerifier.defaultTransport(),
        wallClock: @escaping WallClock = systemWallClock,
        allowedClockSkew: Duration = .seconds(120),
        logger: Logger = Logger(label: "TokenAuth.IDTokenVerifier")
    ) {
        self.issuer = issuer
        self.tenantTemplate = issuerTemplate.map { TenantIssuerTemplate($0) ?? .matchingNothing($0) }
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
        transport: any HTTPTransport = IDTokenVerifier.defaultTransport(),
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
            issuer: issuer, clientID: clientID, jwksURI: jwksURI, issuerTemplate: metadata.issuerTemplate,
            transport: transport, wallClock: wallClock, allowedClockSkew: allowedClockSkew, logger: logger)
    }

    /// A verifier for a stored client that records its issuer and `jwks_uri` (what discovery recorded), or `nil`
    /// when it records neither — what a refresh needs to validate new `id_token`s without discovering again.
    public init?(
        client: OAuthClient,
        transport: any HTTPTransport = IDTokenVerifier.defaultTransport(),
        wallClock: @escaping WallClock = systemWallClock,
        allowedClockSkew: Duration = .seconds(120),
        logger: Logger = Logger(label: "TokenAuth.IDTokenVerifier")
    ) {
        guard let issuer = client.issuer, let jwksURI = client.jwksURI else { return nil }
        self.init(
            issuer: issuer, clientID: client.clientID, jwksURI: jwksURI, issuerTemplate: client.issuerTemplate,
            transport: transport, wallClock: wallClock, allowedClockSkew: allowedClockSkew, logger: logger)
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
        let payload = try await Self.payload(of: idToken, alg: alg, kid: kid, keys: keys)
        let claims = payload.claims
        try check(claims, nonce: nonce)
        return claims
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
}
