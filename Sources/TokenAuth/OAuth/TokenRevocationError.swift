/// Why a token could not be revoked (RFC 7009), classified as permanent or transient.
///
/// A transient failure (no answer, 5xx, 429) may succeed later: the token is still valid at the server until it
/// expires. A permanent one (the server refused the request, e.g. `invalid_client` or `unsupported_token_type`,
/// or the endpoint is not usable) will not. Descriptions never contain the token or the client secret.
public struct TokenRevocationError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case rejected
        case unavailable
        case insecureEndpoint
        case invalidClientConfiguration
        case redirected
    }

    private let code: Code
    /// The RFC 6749 §5.2 / RFC 7009 §2.2.1 `error` code the server sent, if any.
    public let oauthErrorCode: String?
    /// The HTTP status of the answer, when there was one.
    public let statusCode: Int?
    private let detail: String?

    private init(_ code: Code, oauthErrorCode: String? = nil, statusCode: Int? = nil, detail: String? = nil) {
        self.code = code
        self.oauthErrorCode = oauthErrorCode
        self.statusCode = statusCode
        self.detail = detail
    }

    /// The server refused the revocation request (a 4xx answer, usually with an OAuth error code).
    public static let rejected = TokenRevocationError(.rejected)
    /// The endpoint could not be reached, did not answer in time, or answered 5xx or 429.
    public static let unavailable = TokenRevocationError(.unavailable)
    /// The endpoint is neither HTTPS nor on a loopback host; nothing was sent.
    public static let insecureEndpoint = TokenRevocationError(.insecureEndpoint)
    /// The client's authentication method needs a client secret and none is stored; nothing was sent.
    public static let invalidClientConfiguration = TokenRevocationError(.invalidClientConfiguration)
    /// The endpoint answered with a redirect (3xx), which is not followed: the configured URL is not the revocation
    /// endpoint. Nothing was sent to the redirect's target.
    public static let redirected = TokenRevocationError(.redirected)

    static func rejected(code: String?, statusCode: Int) -> TokenRevocationError {
        TokenRevocationError(.rejected, oauthErrorCode: code, statusCode: statusCode)
    }

    static func unavailable(statusCode: Int?, detail: String?) -> TokenRevocationError {
        TokenRevocationError(.unavailable, statusCode: statusCode, detail: detail)
    }

    static func insecureEndpoint(_ endpoint: String) -> TokenRevocationError {
        TokenRevocationError(.insecureEndpoint, detail: endpoint)
    }

    static func redirected(to location: String?, statusCode: Int) -> TokenRevocationError {
        TokenRevocationError(.redirected, statusCode: statusCode, detail: location)
    }

    /// Whether trying again later may succeed.
    public var isTransient: Bool { code == .unavailable }

    /// Two errors are equal when they are the same kind of failure.
    public static func == (lhs: TokenRevocationError, rhs: TokenRevocationError) -> Bool {
        lhs.code == rhs.code
    }

    /// What happened and what it means, for a person.
    public var description: String {
        let status = statusCode.map { " (HTTP \($0))" } ?? ""
        switch code {
        case .rejected:
            return "The revocation endpoint refused the request with \(oauthErrorCode ?? "an error")\(status). "
                + "Check the client ID, secret and revocation URL; the token stays valid at the server until it expires."
        case .unavailable:
            return "The revocation endpoint could not be used just now\(status)\(detail.map { ": \($0)" } ?? ""). "
                + "The token stays valid at the server until it expires."
        case .insecureEndpoint:
            return "Refused to send a token to \(detail ?? "the revocation endpoint") over plain HTTP; use https:// "
                + "(plain http is allowed only for loopback hosts)."
        case .invalidClientConfiguration:
            return "The OAuth client cannot authenticate at the revocation endpoint: its method needs a client secret "
                + "and none is stored."
        case .redirected:
            let target = detail.map { "redirects to \($0)\(status); use that URL as the revocation endpoint" }
                ?? "answered with a redirect without a usable Location\(status); check the revocation URL"
            return "The revocation endpoint \(target). The redirect was not followed, since the request carries the "
                + "token and the client's credentials; the token stays valid at the server until it expires."
        }
    }
}
