import Foundation
import TokenAuth

/// A provider whose endpoints and habits are known, so that a sign-in needs only its name and the app's client id:
/// what `tokenctl login --provider` fills in. Each entry cites the provider's documentation.
///
/// ```swift
/// let github = try KnownProvider.named("github")
/// if case .manual(let endpoints) = github.endpoints {
///     let client = OAuthClient(tokenEndpoint: endpoints.token, clientID: "Iv1.0123456789abcdef")
///     _ = client
/// }
/// ```
public struct KnownProvider: Sendable, Equatable {
    /// Where the provider's endpoints come from.
    public enum Endpoints: Sendable, Equatable {
        /// Discovered from this issuer (RFC 8414, OpenID Connect Discovery).
        case issuer(URL)
        /// Given by hand: the provider publishes no discovery document for these clients.
        case manual(ManualEndpoints)
    }

    /// The endpoints of a provider without discovery.
    public struct ManualEndpoints: Sendable, Equatable {
        /// The authorization endpoint, for the browser sign-in.
        public var authorization: URL
        /// The token endpoint.
        public var token: URL
        /// The device authorization endpoint (RFC 8628), when the provider has one.
        public var deviceAuthorization: URL?
        /// The revocation endpoint (RFC 7009), when the provider has one.
        public var revocation: URL?
    }

    /// The name `named(_:)` knows it by, such as `github`.
    public let name: String
    /// Its endpoints, or the issuer to discover them from.
    public let endpoints: Endpoints
    /// Whether a desktop ("installed") app sends its client secret to the token endpoint although it cannot keep
    /// it secret: the provider requires it (give it with the secret, as `tokenctl login --client-secret-stdin`).
    public let installedClientsSendSecret: Bool

    /// The names ``named(_:)`` knows: `github`, `google`, `gitlab`, `microsoft[=TENANT]`.
    public static let names = ["github", "google", "gitlab", "microsoft[=TENANT]"]

    /// GitHub (OAuth apps and GitHub Apps): no discovery; the browser flow with PKCE (S256, supported since
    /// 2025-07-14) and the client secret, the device flow without it; no RFC 7009 revocation.
    /// https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps
    public static let github = KnownProvider(
        name: "github",
        endpoints: .manual(ManualEndpoints(
            authorization: URL(string: "https://github.com/login/oauth/authorize")!,
            token: URL(string: "https://github.com/login/oauth/access_token")!,
            deviceAuthorization: URL(string: "https://github.com/login/device/code")!,
            revocation: nil)),
        installedClientsSendSecret: true)

    /// Google: OpenID Connect discovery at accounts.google.com; desktop clients send their client secret, which
    /// Google says is not treated as a secret for installed apps.
    /// https://developers.google.com/identity/protocols/oauth2/native-app and
    /// https://developers.google.com/identity/openid-connect/openid-connect#discovery
    public static let google = KnownProvider(
        name: "google", endpoints: .issuer(URL(string: "https://accounts.google.com")!), installedClientsSendSecret: true)

    /// GitLab.com: OpenID Connect discovery at gitlab.com; public clients use PKCE without a secret.
    /// https://docs.gitlab.com/api/oauth2/ and https://docs.gitlab.com/integration/openid_connect_provider/
    public static let gitlab = KnownProvider(
        name: "gitlab", endpoints: .issuer(URL(string: "https://gitlab.com")!), installedClientsSendSecret: false)

    /// Microsoft identity platform (v2.0): discovery at `https://login.microsoftonline.com/TENANT/v2.0`; public
    /// clients use PKCE without a secret. https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols-oidc
    ///
    /// `tenant` is one of:
    /// - `common` (any work, school or personal account) or `organizations` (work and school accounts): their
    ///   metadata names the template issuer `https://login.microsoftonline.com/{tenantid}/v2.0`, and each
    ///   `id_token` is checked against it filled with the token's `tid` (``AuthorizationServerMetadata/issuerTemplate``);
    /// - `consumers` (personal accounts): discovered from the issuer its metadata names, that of the consumer tenant
    ///   `9188040d-6c67-4c5b-b112-36a304b66dad`;
    /// - a tenant id (a GUID, the Entra admin center's "Tenant ID").
    ///
    /// A tenant's domain name (`contoso.onmicrosoft.com`) is refused: its metadata names the tenant's id as the
    /// issuer, not the domain, so discovery would refuse it as a document for another issuer.
    public static func microsoft(tenant: String) throws(SignInError) -> KnownProvider {
        let fix = "Give common, organizations, consumers or your tenant's id (a GUID): microsoft=common."
        let lowered = tenant.lowercased()
        let path: String
        switch lowered {
        case "common", "organizations": path = lowered
        case "consumers": path = consumerTenant
        default:
            guard isGUID(lowered) else {
                throw .unknownProvider(
                    "microsoft=\(SignInError.clean(tenant))",
                    why: lowered.contains(".")
                        ? "Microsoft's metadata for a domain names the tenant's id as its issuer, not the domain"
                        : "a tenant is common, organizations, consumers or a tenant id",
                    fix: fix)
            }
            path = lowered
        }
        let issuer = URL(string: "https://login.microsoftonline.com/\(path)/v2.0")!
        return KnownProvider(name: "microsoft=\(lowered)", endpoints: .issuer(issuer), installedClientsSendSecret: false)
    }

    /// The tenant of personal Microsoft accounts, whose issuer the `consumers` metadata names.
    /// https://learn.microsoft.com/en-us/entra/identity-platform/id-token-claims-reference
    static let consumerTenant = "9188040d-6c67-4c5b-b112-36a304b66dad"

    /// Whether `text` is a GUID in its 8-4-4-4-12 hexadecimal form.
    private static func isGUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }

    /// The provider `name` stands for: `github`, `google`, `gitlab`, `microsoft` (`microsoft=common`) or
    /// `microsoft=TENANT` (see ``microsoft(tenant:)``).
    /// - Throws: ``SignInError/Code/unknownProvider`` for any other name, or a tenant ``microsoft(tenant:)`` refuses.
    public static func named(_ name: String) throws(SignInError) -> KnownProvider {
        switch name.lowercased() {
        case "github": return github
        case "google": return google
        case "gitlab": return gitlab
        case "microsoft": return try microsoft(tenant: "common")
        default:
            guard name.lowercased().hasPrefix("microsoft=") else {
                throw .unknownProvider(
                    SignInError.clean(name), why: "it is not one of \(names.joined(separator: ", "))",
                    fix: "Give one of those, or the endpoints by hand.")
            }
            return try microsoft(tenant: String(name.dropFirst("microsoft=".count)))
        }
    }
}
