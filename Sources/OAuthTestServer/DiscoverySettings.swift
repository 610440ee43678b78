extension OAuthTestServer {
    /// The three well-known URLs a metadata document can be served at.
    package enum WellKnownURL: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
        /// `/.well-known/oauth-authorization-server` inserted before the issuer's path (RFC 8414 §3.1).
        case oauthAuthorizationServer
        /// `/.well-known/openid-configuration` inserted before the issuer's path (RFC 8414 §5).
        case openIDConfigurationInserted
        /// `/.well-known/openid-configuration` appended to the issuer's path (OpenID Connect Discovery 1.0 §4).
        case openIDConfigurationAppended
    }

    /// A member value of a metadata document.
    package enum MetadataValue: Sendable, Equatable {
        /// A JSON string, such as a URL.
        case string(String)
        /// A JSON array of strings, such as `code_challenge_methods_supported`.
        case strings([String])
        /// A JSON number, for documents with a member of the wrong type.
        case number(Int)

        var json: Any {
            switch self {
            case .string(let value): value
            case .strings(let values): values
            case .number(let value): value
            }
        }
    }

    /// What the server publishes about itself at the well-known URLs, changeable while it runs through
    /// ``OAuthTestServer/discovery``: a test changes the settings it needs, one by one. The defaults serve a correct
    /// document at every well-known URL for an issuer without a path.
    ///
    /// The document names the issuer `http://HOST:PORT` followed by ``issuerPath`` (HOST:PORT as the request's
    /// `Host` says), the token, revocation and device authorization endpoints, and ``additionalMembers``.
    package struct DiscoverySettings: Sendable, Equatable {
        /// The path of the issuer identifier, such as `/tenant-a`; empty (the default) for an issuer without a path.
        package var issuerPath = ""
        /// The URLs at which the document is served (all by default); the others answer 404.
        package var servedAt = Set(WellKnownURL.allCases)
        /// An issuer to name instead of the server's own, to test that clients refuse a document for another issuer.
        package var advertisedIssuer: String?
        /// Members left out of the document, such as `token_endpoint`.
        package var omittedMembers: Set<String> = []
        /// Members added to (or replacing those in) the document, such as `jwks_uri`.
        package var additionalMembers: [String: MetadataValue] = [:]
        /// Whether the document is an HTML page instead of JSON, as a misconfigured server or proxy sends.
        package var servesHTML = false
        /// Microsoft's multi-tenant metadata (`common`, `organizations`) when set: the document's issuer is
        /// ``issuerPath`` with its first segment replaced by `{tenantid}`, and each `id_token` names its user's tenant
        /// (from this table; ``consumerTenant`` for users not in it) in `tid`, and in `iss` as that first segment.
        package var tenantsByUser: [String: String]?

        /// The tenant of users that ``tenantsByUser`` does not name: Microsoft's tenant of personal accounts.
        package static let consumerTenant = "9188040d-6c67-4c5b-b112-36a304b66dad"

        /// Creates the default settings.
        package init() {}

        /// ``issuerPath`` with its first segment replaced by `tenant`, such as `/{tenantid}/v2.0`.
        package func issuerPath(forTenant tenant: String) -> String {
            var segments = issuerPath.split(separator: "/", omittingEmptySubsequences: false)
            guard segments.count > 1 else { return "/" + tenant }
            segments[1] = Substring(tenant)
            return segments.joined(separator: "/")
        }

        /// The path of `form` for this issuer path.
        package func path(of form: WellKnownURL) -> String {
            var issuerPath = issuerPath
            while issuerPath.hasSuffix("/") { issuerPath.removeLast() }
            switch form {
            case .oauthAuthorizationServer: return "/.well-known/oauth-authorization-server" + issuerPath
            case .openIDConfigurationInserted: return "/.well-known/openid-configuration" + issuerPath
            case .openIDConfigurationAppended: return issuerPath + "/.well-known/openid-configuration"
            }
        }
    }
}
