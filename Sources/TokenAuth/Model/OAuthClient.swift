#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How an app identifies itself to an authorization server's token endpoint, and where that endpoint is.
///
/// Stored next to the tokens, so that one keyring item is everything needed to refresh them.
/// Its `description` never shows the client secret.
public struct OAuthClient: Sendable, Equatable {
    /// How the client authenticates at the token endpoint (RFC 6749 §2.3, OpenID Connect Core §9).
    public enum Authentication: String, Sendable, Equatable, CaseIterable {
        /// A public client: `client_id` in the request body and no secret.
        case none
        /// `client_id` and `client_secret` in the request body.
        case clientSecretPost = "client_secret_post"
        /// HTTP Basic authentication with the URL-encoded client id and secret.
        case clientSecretBasic = "client_secret_basic"
    }

    /// The token endpoint (RFC 6749 §3.2).
    public var tokenEndpoint: URL
    /// The client identifier (RFC 6749 §2.2).
    public var clientID: String
    /// The client secret of a confidential client.
    public var clientSecret: String?
    /// How the client authenticates. Defaults to `clientSecretBasic` with a secret and `none` without.
    public var authentication: Authentication
    /// The token revocation endpoint (RFC 7009), used on logout when present.
    public var revocationEndpoint: URL?
    /// The issuer identifier the endpoints were discovered from (RFC 8414, OpenID Connect Discovery), exactly as
    /// the metadata named it; `nil` when the endpoints were configured by hand.
    ///
    /// With ``jwksURI`` it is all a later refresh needs to validate a new `id_token` without discovering again.
    public var issuer: URL?
    /// The `{tenantid}` template the issuer's metadata named instead of ``issuer`` (Microsoft's `common` and
    /// `organizations`), which an `id_token`'s `iss` fills with its own `tid`; `nil` for every other issuer.
    ///
    /// Only a sign-in needs it: the sign-in records the issuer of the identity it checked (one tenant's) in
    /// ``issuer`` and drops the template, so a stored item never holds one.
    public var issuerTemplate: String?
    /// Where the issuer publishes its signing keys (`jwks_uri`), to validate `id_token`s.
    public var jwksURI: URL?
    /// The OpenID Connect UserInfo endpoint (`userinfo_endpoint`), asked for a display name when the `id_token`
    /// has none.
    public var userinfoEndpoint: URL?
    /// Whether this client signs in as itself, with the client credentials grant (RFC 6749 §4.4), so that a new
    /// token is fetched with that grant when there is no refresh token. `false` for a client a user signed in with:
    /// its tokens are never replaced by the client's own, and without a refresh token a new sign-in is needed.
    public var usesClientCredentials: Bool

    /// Creates a client description.
    public init(
        tokenEndpoint: URL,
        clientID: String,
        clientSecret: String? = nil,
        authentication: Authentication? = nil,
        revocationEndpoint: URL? = nil,
        issuer: URL? = nil,
        jwksURI: URL? = nil,
        userinfoEndpoint: URL? = nil,
        usesClientCredentials: Bool = false,
        issuerTemplate: String? = nil
    ) {
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.authentication = authentication ?? (clientSecret == nil ? .none : .clientSecretBasic)
        self.revocationEndpoint = revocationEndpoint
        self.issuer = issuer
        self.jwksURI = jwksURI
        self.userinfoEndpoint = userinfoEndpoint
        self.usesClientCredentials = usesClientCredentials
        self.issuerTemplate = issuerTemplate
    }
}

extension OAuthClient: CustomStringConvertible {
    /// A description with the client secret redacted.
    public var description: String {
        "OAuthClient(tokenEndpoint: \(tokenEndpoint.absoluteString), clientID: \(clientID), "
            + "clientSecret: \(clientSecret == nil ? "none" : "<redacted>"), authentication: \(authentication.rawValue))"
    }
}
