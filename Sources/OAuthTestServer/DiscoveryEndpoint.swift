import Foundation
import Hummingbird

/// `GET` at the well-known metadata URLs (RFC 8414, OpenID Connect Discovery): the document of
/// ``OAuthTestServer/DiscoverySettings``, at the URLs they name, and 404 elsewhere. Counts requests per path.
struct DiscoveryEndpoint: Sendable {
    let state: ServerState

    /// Whether `path` is one the endpoint answers: anything with a `/.well-known/` segment.
    static func handles(_ path: String) -> Bool {
        path.contains("/.well-known/")
    }

    func respond(to request: Request) -> Response {
        let path = request.uri.path
        let (settings, browser) = state.withLock { contents in
            contents.flows.discoveryRequests[path, default: 0] += 1
            return (contents.flows.discovery, contents.flows.browser)
        }
        guard request.method == .get,
            settings.servedAt.contains(where: { settings.path(of: $0) == path })
        else {
            return Reply.json(["error": "not_found"], status: .notFound)
        }
        if settings.servesHTML {
            return Reply.bytes(
                Data("<html><body>Welcome</body></html>".utf8), contentType: "text/html", status: .ok, headers: [:])
        }
        let base = "http://\(request.head.authority ?? state.configuration.host)"
        var document: [String: Any] = [
            "issuer": settings.advertisedIssuer
                ?? base + (settings.tenantsByUser == nil ? settings.issuerPath : settings.issuerPath(forTenant: "{tenantid}")),
            "token_endpoint": base + "/token",
            "revocation_endpoint": base + "/revoke",
            "device_authorization_endpoint": base + "/device_authorization",
            "authorization_endpoint": base + "/authorize",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": browser.advertisesPlainPKCEOnly ? ["plain"] : ["S256"],
            "authorization_response_iss_parameter_supported": browser.sendsIssuer,
            "jwks_uri": base + "/jwks",
            "userinfo_endpoint": base + "/userinfo",
            "id_token_signing_alg_values_supported": ["RS256", "ES256"],
            "subject_types_supported": ["public"],
            "scopes_supported": ["openid", "profile", "email"],
            "grant_types_supported": [
                "authorization_code", "refresh_token", "client_credentials", "password",
                "urn:ietf:params:oauth:grant-type:device_code",
            ],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
        ]
        if state.configuration.advertisesDPoP { document["dpop_signing_alg_values_supported"] = ["ES256"] }
        for (name, value) in settings.additionalMembers { document[name] = value.json }
        for name in settings.omittedMembers { document[name] = nil }
        return Reply.json(document)
    }
}
