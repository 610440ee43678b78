import Foundation
import TokenAuth

/// The failures of discovery (RFC 8414, OpenID Connect Discovery 1.0). Discovery sends no credentials, so the texts
/// can name the URLs involved.
extension SignInError {
    static func unknownProvider(_ name: String, why: String, fix: String) -> SignInError {
        SignInError(.unknownProvider, "No known provider \"\(name)\": \(why).", fix: fix)
    }

    static func insecureIssuer(_ issuer: URL) -> SignInError {
        SignInError(
            .insecureIssuer, "Refused to discover metadata from \(issuer.absoluteString) over plain HTTP; nothing was sent.",
            fix: "Use an https:// issuer; plain http is allowed only for loopback hosts (localhost, 127.0.0.0/8, ::1).")
    }

    static func invalidIssuer(_ issuer: URL, _ problem: String) -> SignInError {
        SignInError(
            .invalidIssuer, "The issuer URL \(issuer.absoluteString) \(problem); nothing was sent.",
            fix: "Give the issuer identifier exactly as the provider documents it: https://host[/path], without a query "
                + "or fragment.")
    }

    static func metadataNotFound(tried urls: [URL], lastStatus: Int?) -> SignInError {
        SignInError(
            .metadataNotFound,
            "No authorization server metadata was found at \(urls.map(\.absoluteString).joined(separator: ", "))"
                + "\(statusText(lastStatus)).",
            fix: "Check the issuer URL (it is the provider's issuer identifier, not its token endpoint), or configure "
                + "the endpoints by hand if the provider publishes no metadata.",
            statusCode: lastStatus)
    }

    static func redirected(from url: URL, status: Int, location: String?) -> SignInError {
        SignInError(
            .redirected,
            "The authorization server metadata URL answered with a redirect\(statusText(status)): \(url.absoluteString) "
                + "redirects to \(location.map { clean($0, limit: 300) } ?? "nowhere").",
            fix: "Use the issuer URL the redirect points at if the provider documents it as its issuer; redirects are "
                + "never followed for metadata.",
            statusCode: status)
    }

    static func metadataNotJSON(at url: URL) -> SignInError {
        SignInError(
            .metadataNotJSON, "The authorization server metadata at \(url.absoluteString) is not a JSON object.",
            fix: "Check that the issuer URL points at the authorization server and not at a web page.")
    }

    static func issuerMismatch(expected: String, found: String?, at url: URL) -> SignInError {
        let named = found.map { "\"\(clean($0, limit: 300))\"" } ?? "no issuer"
        return SignInError(
            .issuerMismatch,
            "The authorization server metadata is for another issuer: \(url.absoluteString) names \(named), not "
                + "\"\(expected)\".",
            fix: "Use exactly the issuer identifier the document names, including the path and any trailing slash, if "
                + "that is the provider you mean; otherwise the document is not to be trusted.")
    }

    static func missingEndpoint(_ member: String, at url: URL?) -> SignInError {
        SignInError(
            .missingEndpoint, "The authorization server metadata\(url.map { " at \($0.absoluteString)" } ?? "") has no \(member).",
            fix: "The provider does not offer this flow: enable it at the provider, or use a flow it supports.",
            member: member)
    }

    static func insecureEndpoint(_ member: String, value: String, at url: URL) -> SignInError {
        SignInError(
            .insecureEndpoint,
            "The authorization server metadata names an endpoint that would expose credentials: \(url.absoluteString) "
                + "gives \(member) \"\(clean(value, limit: 300))\".",
            fix: "Fix the provider's metadata: every endpoint must be https:// (http only on loopback).", member: member)
    }

    static func metadataTooLarge(at url: URL) -> SignInError {
        SignInError(
            .responseTooLarge,
            "The authorization server metadata at \(url.absoluteString) is larger than "
                + "\(AuthorizationServerMetadata.maximumSize / 1024) KiB.",
            fix: "Check that the issuer URL points at the authorization server's metadata.")
    }

    static func metadataUnavailable(_ url: URL?, statusCode: Int? = nil, cause: String) -> SignInError {
        SignInError(
            .unavailable,
            "The authorization server metadata could not be fetched\(statusText(statusCode)) "
                + "(\(url.map { "\($0.absoluteString): " } ?? "")\(cause)).",
            fix: retryLaterFix, statusCode: statusCode)
    }
}
