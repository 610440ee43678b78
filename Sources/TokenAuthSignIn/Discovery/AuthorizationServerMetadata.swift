import Foundation
import TokenAuth

/// What an authorization server publishes about itself (RFC 8414 §2, OpenID Connect Discovery 1.0 §3): its issuer
/// and the endpoints a client needs.
///
/// Obtain it with ``Discovery/metadata(forIssuer:)``, which checks that the document belongs to the issuer asked
/// for. Every endpoint in it is an absolute `https` URL, or `http` on a loopback host: a document naming any other
/// is refused, so no flow built from it can send credentials in the clear.
public struct AuthorizationServerMetadata: Sendable, Equatable {
    /// The largest metadata document accepted: 256 KiB. Real ones are a few kilobytes.
    public static let maximumSize = 256 * 1024

    /// The issuer identifier, exactly as the caller gave it (and the document, unless it names a template).
    public var issuer: String
    /// The `{tenantid}` template the document named as its issuer instead of ``issuer``, or `nil`.
    ///
    /// Microsoft's multi-tenant `common` and `organizations` metadata names
    /// `https://login.microsoftonline.com/{tenantid}/v2.0`: the document is accepted for the issuer asked for when
    /// that is the template filled with `common`, `organizations` or `consumers` (never with one tenant's id, whose
    /// document must name that tenant's issuer), and each `id_token`'s `iss` must then be the template filled
    /// with the token's own `tid` claim, which ``IDTokenVerifier`` checks.
    public var issuerTemplate: String?
    /// The authorization endpoint (RFC 6749 §3.1), for browser-based flows.
    public var authorizationEndpoint: URL?
    /// The token endpoint (RFC 6749 §3.2). Discovery refuses a document without one.
    public var tokenEndpoint: URL
    /// The token revocation endpoint (RFC 7009).
    public var revocationEndpoint: URL?
    /// The device authorization endpoint (RFC 8628 §4).
    public var deviceAuthorizationEndpoint: URL?
    /// The OpenID Connect UserInfo endpoint.
    public var userinfoEndpoint: URL?
    /// Where the server's JSON Web Key Set is published.
    public var jwksURI: URL?
    /// The PKCE code challenge methods the server supports (RFC 7636), such as `S256`; empty when it does not say.
    public var codeChallengeMethodsSupported: [String]
    /// Whether the server sends the `iss` parameter with authorization responses (RFC 9207
    /// `authorization_response_iss_parameter_supported`); then ``BrowserSignIn`` refuses a response without it.
    public var authorizationResponseIssParameterSupported: Bool
    /// The JWS algorithms the server accepts in DPoP proofs (RFC 9449 §5.1 `dpop_signing_alg_values_supported`);
    /// empty when it does not say, which most servers without DPoP do.
    public var dpopSigningAlgValuesSupported: [String]

    /// Whether the server says it accepts DPoP proofs signed with ES256, the only algorithm this library signs with.
    public var supportsDPoP: Bool { dpopSigningAlgValuesSupported.contains("ES256") }

    /// Creates metadata, for example for a provider that publishes none.
    public init(
        issuer: String,
        tokenEndpoint: URL,
        authorizationEndpoint: URL? = nil,
        revocationEndpoint: URL? = nil,
        deviceAuthorizationEndpoint: URL? = nil,
        userinfoEndpoint: URL? = nil,
        jwksURI: URL? = nil,
        codeChallengeMethodsSupported: [String] = [],
        authorizationResponseIssParameterSupported: Bool = false,
        issuerTemplate: String? = nil,
        dpopSigningAlgValuesSupported: [String] = []
    ) {
        self.issuer = issuer
        self.issuerTemplate = issuerTemplate
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.jwksURI = jwksURI
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
        self.dpopSigningAlgValuesSupported = dpopSigningAlgValuesSupported
    }

    /// The client to sign in as and to store with the tokens: this server's token and revocation endpoints with
    /// the app's registration, and the issuer with its `jwks_uri` and `userinfo_endpoint`, so that the stored item
    /// alone can refresh, revoke and validate later `id_token`s without discovering again.
    ///
    /// - Parameters:
    ///   - clientID: The client identifier registered at the provider.
    ///   - clientSecret: The secret of a confidential client; `nil` for a public client (a desktop app).
    ///   - authentication: How to authenticate; the default follows `OAuthClient`.
    public func client(
        id clientID: String,
        secret clientSecret: String? = nil,
        authentication: OAuthClient.Authentication? = nil
    ) -> OAuthClient {
        OAuthClient(
            tokenEndpoint: tokenEndpoint, clientID: clientID, clientSecret: clientSecret,
            authentication: authentication, revocationEndpoint: revocationEndpoint,
            issuer: URL(string: issuer), jwksURI: jwksURI, userinfoEndpoint: userinfoEndpoint,
            issuerTemplate: issuerTemplate)
    }

    /// Reads and checks a metadata document fetched from `url` for the issuer `expectedIssuer`.
    ///
    /// Members of the wrong type read as absent, so a quirk in one optional member never makes the document
    /// unusable; a missing or mistyped `issuer` or `token_endpoint` is an error. An `issuer` other than
    /// `expectedIssuer` is accepted only as a ``TenantIssuerTemplate`` that `expectedIssuer` fills with one of its
    /// aliases (`common`, `organizations`, `consumers`).
    static func decode(_ data: Data, from url: URL, expectedIssuer: String) throws(SignInError) -> AuthorizationServerMetadata {
        guard data.count <= maximumSize else { throw .metadataTooLarge(at: url) }
        let body: MetadataBody
        do {
            body = try JSONDecoder().decode(MetadataBody.self, from: data)
        } catch {
            throw .metadataNotJSON(at: url)
        }
        var template: TenantIssuerTemplate?
        if body.issuer != expectedIssuer {
            guard let found = body.issuer, let named = TenantIssuerTemplate(found), named.matches(expectedIssuer) else {
                throw .issuerMismatch(expected: expectedIssuer, found: body.issuer, at: url)
            }
            template = named
        }
        func endpoint(_ member: MetadataBody.CodingKeys) throws(SignInError) -> URL? {
            guard let value = body.endpoints[member] else { return nil }
            guard let endpoint = URL(string: value), endpoint.canCarryCredentials else {
                throw .insecureEndpoint(member.rawValue, value: value, at: url)
            }
            return endpoint
        }
        guard let tokenEndpoint = try endpoint(.tokenEndpoint) else {
            throw .missingEndpoint(MetadataBody.CodingKeys.tokenEndpoint.rawValue, at: url)
        }
        return AuthorizationServerMetadata(
            issuer: expectedIssuer,
            tokenEndpoint: tokenEndpoint,
            authorizationEndpoint: try endpoint(.authorizationEndpoint),
            revocationEndpoint: try endpoint(.revocationEndpoint),
            deviceAuthorizationEndpoint: try endpoint(.deviceAuthorizationEndpoint),
            userinfoEndpoint: try endpoint(.userinfoEndpoint),
            jwksURI: try endpoint(.jwksURI),
            codeChallengeMethodsSupported: body.codeChallengeMethodsSupported,
            authorizationResponseIssParameterSupported: body.authorizationResponseIssParameterSupported,
            issuerTemplate: template?.text,
            dpopSigningAlgValuesSupported: body.dpopSigningAlgValuesSupported
        )
    }
}

/// The members of a metadata document that the library reads, each decoded leniently.
private struct MetadataBody: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
    }

    var issuer: String?
    /// The endpoint members present as non-empty strings.
    var endpoints: [CodingKeys: String] = [:]
    var codeChallengeMethodsSupported: [String]
    var authorizationResponseIssParameterSupported: Bool
    var dpopSigningAlgValuesSupported: [String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try? container.decodeIfPresent(String.self, forKey: .issuer)
        let flags: Set<CodingKeys> = [
            .issuer, .codeChallengeMethodsSupported, .authorizationResponseIssParameterSupported,
            .dpopSigningAlgValuesSupported,
        ]
        for key in CodingKeys.allCases where !flags.contains(key) {
            endpoints[key] = container.nonEmptyString(forKey: key)
        }
        codeChallengeMethodsSupported =
            (try? container.decodeIfPresent([String].self, forKey: .codeChallengeMethodsSupported)) ?? []
        authorizationResponseIssParameterSupported =
            (try? container.decodeIfPresent(Bool.self, forKey: .authorizationResponseIssParameterSupported)) ?? false
        dpopSigningAlgValuesSupported =
            (try? container.decodeIfPresent([String].self, forKey: .dpopSigningAlgValuesSupported)) ?? []
    }
}
