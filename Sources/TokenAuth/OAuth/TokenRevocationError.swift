/// Why a token could not be revoked (RFC 7009), classified as permanent or transient.
///
/// A transient failure (no answer, 5xx, 429) may succeed later: the token is still valid at the server until it
/// expires. A permanent one (the server refused the request, e.g. `invalid_client` or `unsupported_token_type`,
/// or the endpoint is not usable) will not. Descriptions never contain the token or the client secret.
public struct TokenRevocationError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
        case rejected
        case unavailable
        case insecureEndpoint
        case invalidClientConfiguration
        case redirected
    }

    /// The kind of failure (see ``ErrorCode``).
    public var code: Code { Code(kind.rawValue) }

    /// The kind of a ``TokenRevocationError``.
    public typealias Code = ErrorCode<TokenRevocationError>

    private let kind: Kind
    /// The RFC 6749 §5.2 / RFC 7009 §2.2.1 `error` code the server sent, if any.
    public let oauthErrorCode: String?
    /// The HTTP status of the answer, when there was one.
    public let statusCode: Int?
    private let detail: String?

    private init(_ kind: Kind, oauthErrorCode: String? = nil, statusCode: Int? = nil, detail: String? = nil) {
        self.kind = kind
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
    public var isTransient: Bool { kind == .unavailable }

    /// Two errors are equal when they are the same kind of failure.
    public static func == (lhs: TokenRevocationError, rhs: TokenRevocationError) -> Bool {
        lhs.kind == rhs.kind
    }

    /// What to do about it.
    public var fix: String {
        switch kind {
        case .rejected: "Check the client ID, the client secret and the revocation URL."
        case .unavailable: "Try again later; until then the token stays valid at the server until it expires."
        case .insecureEndpoint: "Use an https:// revocation endpoint (plain http is allowed only for loopback hosts)."
        case .invalidClientConfiguration: "Store the client secret, or register the client with the method none."
        case .redirected: "Use the URL it redirects to as the revocation endpoint."
        }
    }

    /// What happened and what it means, for a person.
    public var description: String {
        let status = statusCode.map { " (HTTP \($0))" } ?? ""
        switch kind {
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

extension ErrorCode where Domain == TokenRevocationError {
    /// The server refused the revocation request.
    public static let rejected = Self("rejected")
    /// The endpoint could not be used just now (no answer, 5xx, 429): transient.
    public static let unavailable = Self("unavailable")
    /// The revocation endpoint is plain HTTP to a remote host: no token was sent.
    public static let insecureEndpoint = Self("insecureEndpoint")
    /// The revocation request could not authenticate the client (its secret is missing): no token was sent.
    public static let invalidClientConfiguration = Self("invalidClientConfiguration")
    /// The revocation endpoint redirected, and the token was not sent on to the redirect's target.
    public static let redirected = Self("redirected")
}
