import Foundation
import TokenAuth

/// Why an authorization server's metadata could not be discovered (RFC 8414, OpenID Connect Discovery 1.0).
///
/// - **Permanent** (``isPermanent``): the issuer or the server is configured in a way that repeating the lookup
///   cannot fix — an insecure or malformed issuer URL (refused before any request), no document at any well-known
///   URL, a redirect, a document that is not JSON, names another issuer, lacks a required endpoint or names an
///   endpoint that would expose credentials, or one larger than ``AuthorizationServerMetadata/maximumSize``.
/// - **Transient** (``isTransient``): ``unavailable`` — no answer, no answer in time, or a 5xx, 408 or 429
///   status. Trying again later may succeed.
///
/// Compare with the static members (`error == .issuerMismatch`); equality looks at the kind of failure only.
/// Discovery sends no credentials, so descriptions can name the URLs involved.
public struct DiscoveryError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case insecureIssuer
        case invalidIssuer
        case notFound
        case redirected
        case notJSON
        case issuerMismatch
        case missingEndpoint
        case insecureEndpoint
        case responseTooLarge
        case unavailable
    }

    private let code: Code
    /// The metadata member concerned (such as `token_endpoint`) for ``missingEndpoint`` and ``insecureEndpoint``.
    public let member: String?
    /// The HTTP status of the answer that ended discovery, when there was one.
    public let statusCode: Int?
    /// What went wrong in our own words: the URLs involved.
    private let detail: String?

    private init(_ code: Code, member: String? = nil, statusCode: Int? = nil, detail: String? = nil) {
        self.code = code
        self.member = member
        self.statusCode = statusCode
        self.detail = detail
    }

    // MARK: - Permanent: refused before any request

    /// The issuer is neither `https` nor `http` on a loopback host; nothing was sent.
    public static let insecureIssuer = DiscoveryError(.insecureIssuer)
    /// The issuer URL has no host, or has a query or fragment, which RFC 8414 §2 forbids; nothing was sent.
    public static let invalidIssuer = DiscoveryError(.invalidIssuer)

    // MARK: - Permanent: the server's answer

    /// No well-known URL answered with a document (each answered 4xx, typically 404).
    public static let notFound = DiscoveryError(.notFound)
    /// A well-known URL answered with a redirect (3xx). Redirects are not followed: the metadata must come from the
    /// issuer itself.
    public static let redirected = DiscoveryError(.redirected)
    /// The document is not a JSON object.
    public static let notJSON = DiscoveryError(.notJSON)
    /// The document's `issuer` is not exactly the issuer asked for (RFC 8414 §3.3), or is missing.
    public static let issuerMismatch = DiscoveryError(.issuerMismatch)
    /// An endpoint the flow needs (``member`` names it, e.g. `token_endpoint`) is not in the document.
    public static let missingEndpoint = DiscoveryError(.missingEndpoint)
    /// An endpoint in the document (``member`` names it) is not an absolute `https` URL (or `http` on loopback).
    public static let insecureEndpoint = DiscoveryError(.insecureEndpoint)
    /// The document is larger than ``AuthorizationServerMetadata/maximumSize``.
    public static let responseTooLarge = DiscoveryError(.responseTooLarge)

    // MARK: - Transient

    /// The server could not be reached, did not answer in time, or answered 5xx, 408 or 429.
    public static let unavailable = DiscoveryError(.unavailable)

    // MARK: - Classification

    /// Whether trying again later may succeed.
    public var isTransient: Bool { code == .unavailable }

    /// Whether repeating the lookup cannot succeed until the issuer URL or the server's configuration changes.
    public var isPermanent: Bool { !isTransient }

    /// Two errors are equal when they are the same kind of failure.
    public static func == (lhs: DiscoveryError, rhs: DiscoveryError) -> Bool {
        lhs.code == rhs.code
    }

    // MARK: - Construction

    static func insecureIssuer(_ issuer: URL) -> DiscoveryError {
        DiscoveryError(.insecureIssuer, detail: issuer.absoluteString)
    }

    static func invalidIssuer(_ issuer: URL, _ reason: String) -> DiscoveryError {
        DiscoveryError(.invalidIssuer, detail: "\(issuer.absoluteString) \(reason)")
    }

    static func notFound(tried urls: [URL], lastStatus: Int?) -> DiscoveryError {
        DiscoveryError(.notFound, statusCode: lastStatus, detail: urls.map(\.absoluteString).joined(separator: ", "))
    }

    static func redirected(from url: URL, status: Int, location: String?) -> DiscoveryError {
        DiscoveryError(
            .redirected, statusCode: status,
            detail: "\(url.absoluteString) redirects to \(location.map { TokenAuthError.sanitize($0, secrets: [], limit: 300) } ?? "nowhere")")
    }

    static func notJSON(at url: URL) -> DiscoveryError {
        DiscoveryError(.notJSON, detail: url.absoluteString)
    }

    static func issuerMismatch(expected: String, found: String?, at url: URL) -> DiscoveryError {
        let named = found.map { "\"\(TokenAuthError.sanitize($0, secrets: [], limit: 300))\"" } ?? "no issuer"
        return DiscoveryError(
            .issuerMismatch, detail: "\(url.absoluteString) names \(named), not \"\(expected)\"")
    }

    static func missingEndpoint(_ member: String, at url: URL?) -> DiscoveryError {
        DiscoveryError(.missingEndpoint, member: member, detail: url?.absoluteString)
    }

    static func insecureEndpoint(_ member: String, value: String, at url: URL) -> DiscoveryError {
        DiscoveryError(
            .insecureEndpoint, member: member,
            detail: "\(url.absoluteString) gives \(member) \"\(TokenAuthError.sanitize(value, secrets: [], limit: 300))\"")
    }

    static func responseTooLarge(at url: URL) -> DiscoveryError {
        DiscoveryError(.responseTooLarge, detail: url.absoluteString)
    }

    static func unavailable(_ url: URL?, statusCode: Int? = nil, cause: String) -> DiscoveryError {
        DiscoveryError(.unavailable, statusCode: statusCode, detail: "\(url.map { "\($0.absoluteString): " } ?? "")\(cause)")
    }

    // MARK: - Description

    /// What happened and how to fix it, written for a person.
    public var description: String {
        summary + " " + fix
    }

    private var statusText: String {
        statusCode.map { " (HTTP \($0))" } ?? ""
    }

    private var summary: String {
        switch code {
        case .insecureIssuer:
            return "Refused to discover metadata from \(detail ?? "the issuer") over plain HTTP; nothing was sent."
        case .invalidIssuer:
            return "The issuer URL \(detail ?? "is not valid"); nothing was sent."
        case .notFound:
            return "No authorization server metadata was found at \(detail ?? "the well-known URLs")\(statusText)."
        case .redirected:
            return "The authorization server metadata URL answered with a redirect\(statusText): \(detail ?? "")."
        case .notJSON:
            return "The authorization server metadata at \(detail ?? "the well-known URL") is not a JSON object."
        case .issuerMismatch:
            return "The authorization server metadata is for another issuer: \(detail ?? "")."
        case .missingEndpoint:
            let at = detail.map { " at \($0)" } ?? ""
            return "The authorization server metadata\(at) has no \(member ?? "required endpoint")."
        case .insecureEndpoint:
            return "The authorization server metadata names an endpoint that would expose credentials: \(detail ?? "")."
        case .responseTooLarge:
            return "The authorization server metadata at \(detail ?? "the well-known URL") is larger than "
                + "\(AuthorizationServerMetadata.maximumSize / 1024) KiB."
        case .unavailable:
            return "The authorization server metadata could not be fetched\(statusText)\(detail.map { " (\($0))" } ?? "")."
        }
    }

    /// What to do about it.
    public var fix: String {
        switch code {
        case .insecureIssuer:
            return "Use an https:// issuer; plain http is allowed only for loopback hosts (localhost, 127.0.0.0/8, ::1)."
        case .invalidIssuer:
            return "Give the issuer identifier exactly as the provider documents it: https://host[/path], without a "
                + "query or fragment."
        case .notFound:
            return "Check the issuer URL (it is the provider's issuer identifier, not its token endpoint), or configure "
                + "the endpoints by hand if the provider publishes no metadata."
        case .redirected:
            return "Use the issuer URL the redirect points at if the provider documents it as its issuer; redirects "
                + "are never followed for metadata."
        case .notJSON:
            return "Check that the issuer URL points at the authorization server and not at a web page."
        case .issuerMismatch:
            return "Use exactly the issuer identifier the document names, including the path and any trailing slash, "
                + "if that is the provider you mean; otherwise the document is not to be trusted."
        case .missingEndpoint:
            return "The provider does not offer this flow: enable it at the provider, or use a flow it supports."
        case .insecureEndpoint:
            return "Fix the provider's metadata: every endpoint must be https:// (http only on loopback)."
        case .responseTooLarge:
            return "Check that the issuer URL points at the authorization server's metadata."
        case .unavailable:
            return "Check the network connection and retry later."
        }
    }
}
