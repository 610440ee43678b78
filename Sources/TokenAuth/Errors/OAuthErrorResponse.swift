#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An OAuth error answer: what the token endpoint (RFC 6749 §5.2), the revocation endpoint (RFC 7009 §2.2.1) and the
/// device authorization endpoint (RFC 8628 §3.5) send when they refuse — one value for all of them.
///
/// Every text in it came from a server: it is kept to printable ASCII, bounded in length, and stripped of the
/// request's secrets (a server that echoes the refresh token or password back shows `<redacted>`).
public struct OAuthErrorResponse: Sendable, Equatable {
    /// The `error` code, such as `invalid_grant`.
    public let error: String
    /// The server's `error_description`, at most 500 characters.
    public let errorDescription: String?
    /// The server's `error_uri`, a page about the error, when it is an absolute `http(s)` URL.
    public let errorURI: URL?
    /// Other members of the answer that providers add (Microsoft's `error_codes` and `trace_id`, say), as compact
    /// text by name: at most 10, each at most 200 characters.
    public let extras: [String: String]

    /// Creates an error answer; the texts are made safe as described above.
    public init(error: String, errorDescription: String? = nil, errorURI: URL? = nil, extras: [String: String] = [:]) {
        self.init(error: error, errorDescription: errorDescription, errorURI: errorURI, extras: extras, secrets: [])
    }

    package init(
        error: String, errorDescription: String?, errorURI: URL?, extras: [String: String], secrets: [String]
    ) {
        self.error = TokenAuthError.sanitize(error, secrets: secrets, limit: 100)
        self.errorDescription = errorDescription.map { TokenAuthError.sanitize($0, secrets: secrets, limit: 500) }
        self.errorURI = errorURI.flatMap { ["http", "https"].contains($0.scheme?.lowercased()) ? $0 : nil }
        var kept: [String: String] = [:]
        for (name, value) in extras.sorted(by: { $0.key < $1.key }).prefix(10) {
            kept[TokenAuthError.sanitize(name, secrets: secrets, limit: 50)] =
                TokenAuthError.sanitize(value, secrets: secrets, limit: 200)
        }
        self.extras = kept
    }

    /// The members of an error answer that are not this type's own, rendered as text.
    private static let standardMembers: Set<String> = [
        "error", "error_description", "error_uri", "access_token", "refresh_token", "id_token", "token_type",
        "expires_in", "scope",
    ]

    /// The error answer in a JSON body, or `nil` when the body has no string `error` member.
    ///
    /// - Parameter secrets: the request's secrets, never shown even when the server echoes them.
    package static func parse(_ data: Data, secrets: [String]) -> OAuthErrorResponse? {
        guard let object = JSONValue.object(in: data), let error = object["error"]?.string, !error.isEmpty else {
            return nil
        }
        var extras: [String: String] = [:]
        for (name, value) in object where !standardMembers.contains(name) {
            extras[name] = value.string ?? value.jsonText
        }
        return OAuthErrorResponse(
            error: error, errorDescription: object["error_description"]?.string,
            errorURI: object["error_uri"]?.string.flatMap(URL.init(string:)), extras: extras, secrets: secrets)
    }
}
