/// Why a token request failed, classified as permanent or transient.
///
/// - **Permanent** (``isPermanent``): the authorization server refused the grant with an RFC 6749 §5.2 error such
///   as `invalid_grant` or `invalid_client` — repeating the same request cannot succeed, the user has to sign in
///   again or the client configuration has to change — or the request was refused before sending
///   (``insecureEndpoint``, ``invalidClientConfiguration``), or the endpoint redirected it (``redirected``): a
///   misconfigured endpoint URL, never retried as if the network had failed.
/// - **Transient** (``isTransient``): no answer (``networkFailure``, ``timedOut``), a struggling server
///   (``serverError`` for 5xx, ``rateLimited`` for 429) or an answer that is not a token response
///   (``malformedResponse``). Keep the tokens and retry later, after ``retryAfter`` when the server said.
///
/// Only an RFC 6749 error code can make a server's answer permanent: a bare status such as 404 from a proxy says
/// nothing about the grant, so it is a malformed (transient) response and never logs a user out.
///
/// Compare with the static members (`error == .invalidGrant`); equality looks at the kind of failure and the RFC
/// error code only. ``description`` and ``errorDescription`` never contain a token, secret or password: any of the
/// request's secrets that the server echoed back is replaced by `<redacted>`.
public struct TokenEndpointError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
        case rejected
        case serverError
        case rateLimited
        case networkFailure
        case timedOut
        case malformedResponse
        case insecureEndpoint
        case invalidClientConfiguration
        case redirected
    }

    /// The kind of failure (see ``ErrorCode``).
    public var code: Code { Code(kind.rawValue) }

    /// The kind of a ``TokenEndpointError``.
    public typealias Code = ErrorCode<TokenEndpointError>

    private let kind: Kind
    /// The RFC 6749 §5.2 `error` code the server sent, such as `invalid_grant`, or `nil` when it sent none.
    public let oauthErrorCode: String?
    /// The server's `error_description`, trimmed to printable ASCII and to 500 characters, with secrets redacted.
    public let errorDescription: String?
    /// How long the server asked the client to wait (`Retry-After`), when it said; at most ``maximumRetryAfter``.
    public let retryAfter: Duration?
    /// The longest wait taken from a `Retry-After` header: 1 hour. A longer one, in seconds or as a date, is clamped
    /// to it where the header is read, so a misconfigured or hostile server cannot park a client for a year; after
    /// an hour the client asks again, and a server that still struggles says so again.
    public static let maximumRetryAfter = Duration.seconds(3600)
    /// The HTTP status of the response, or `nil` when there was none (or the error came from ``TokenResponse/parse(data:sentAt:)``).
    public let statusCode: Int?
    /// What went wrong in our own words; never contains a secret.
    private let detail: String?

    private init(
        _ kind: Kind,
        oauthErrorCode: String? = nil,
        errorDescription: String? = nil,
        retryAfter: Duration? = nil,
        statusCode: Int? = nil,
        detail: String? = nil
    ) {
        self.kind = kind
        self.oauthErrorCode = oauthErrorCode
        self.errorDescription = errorDescription
        self.retryAfter = retryAfter
        self.statusCode = statusCode
        self.detail = detail
    }

    // MARK: - Permanent: the server refused the grant

    /// `invalid_request`: the server found the request malformed.
    public static let invalidRequest = rejected("invalid_request")
    /// `invalid_client`: the client's authentication failed.
    public static let invalidClient = rejected("invalid_client")
    /// `invalid_grant`: the refresh token, password or other grant is invalid, expired or revoked.
    public static let invalidGrant = rejected("invalid_grant")
    /// `unauthorized_client`: the client may not use this grant type.
    public static let unauthorizedClient = rejected("unauthorized_client")
    /// `unsupported_grant_type`: the server does not support this grant type.
    public static let unsupportedGrantType = rejected("unsupported_grant_type")
    /// `invalid_scope`: the requested scope is invalid, unknown or wider than the grant.
    public static let invalidScope = rejected("invalid_scope")

    /// A refusal with another RFC 6749 (or extension) error code, for comparisons.
    public static func rejected(_ oauthErrorCode: String) -> TokenEndpointError {
        TokenEndpointError(.rejected, oauthErrorCode: oauthErrorCode)
    }

    // MARK: - Permanent: refused before sending

    /// The token endpoint is not HTTPS and not on a loopback host; nothing was sent.
    public static let insecureEndpoint = TokenEndpointError(.insecureEndpoint)
    /// The client description cannot authenticate as configured, e.g. `client_secret_basic` without a secret.
    public static let invalidClientConfiguration = TokenEndpointError(.invalidClientConfiguration)
    /// The token endpoint answered with a redirect (3xx), which is not followed: the configured URL is not the
    /// token endpoint. Nothing was sent to the redirect's target.
    public static let redirected = TokenEndpointError(.redirected)

    // MARK: - Transient

    /// The server answered with a 5xx status, or with the `server_error` or `temporarily_unavailable` code.
    public static let serverError = TokenEndpointError(.serverError)
    /// The server answered 429 Too Many Requests.
    public static let rateLimited = TokenEndpointError(.rateLimited)
    /// The token endpoint could not be reached, or the connection failed.
    public static let networkFailure = TokenEndpointError(.networkFailure)
    /// The token endpoint did not answer in time.
    public static let timedOut = TokenEndpointError(.timedOut)
    /// The answer is not a token response: not JSON, no `access_token`, too large, or an unexpected status.
    public static let malformedResponse = TokenEndpointError(.malformedResponse)

    // MARK: - Classification

    /// Whether retrying later may succeed; the tokens should be kept.
    public var isTransient: Bool {
        switch kind {
        case .serverError, .rateLimited, .networkFailure, .timedOut, .malformedResponse: true
        case .rejected, .insecureEndpoint, .invalidClientConfiguration, .redirected: false
        }
    }

    /// Whether repeating the request cannot succeed: the user must sign in again or the configuration change.
    public var isPermanent: Bool { !isTransient }

    /// Whether the endpoint itself is configured so that no request can succeed — it is not `https` (nor on a
    /// loopback host), or it redirects: signing in again would meet the same URL, so this is a configuration
    /// error, not a rejected sign-in.
    public var isMisconfiguration: Bool { kind == .insecureEndpoint || kind == .redirected }

    /// Two errors are equal when they are the same kind of failure with the same RFC error code.
    public static func == (lhs: TokenEndpointError, rhs: TokenEndpointError) -> Bool {
        guard lhs.kind == rhs.kind else { return false }
        return lhs.kind != .rejected || lhs.oauthErrorCode == rhs.oauthErrorCode
    }

    // MARK: - Construction

    /// The error for an RFC 6749 §5.2 error response.
    ///
    /// A 5xx or 429 status, or the codes `server_error` and `temporarily_unavailable`, make it transient whatever
    /// the body says; every other code is a permanent refusal.
    static func oauthError(
        code oauthCode: String,
        description: String?,
        statusCode: Int?,
        retryAfter: Duration?,
        secrets: [String]
    ) -> TokenEndpointError {
        let status = statusCode ?? 0
        let kind: Kind
        switch (status, oauthCode) {
        case (429, _), (_, "slow_down"): kind = .rateLimited
        case (500...599, _), (_, "server_error"), (_, "temporarily_unavailable"): kind = .serverError
        default: kind = .rejected
        }
        return TokenEndpointError(
            kind,
            oauthErrorCode: sanitize(oauthCode, secrets: secrets, limit: 100),
            errorDescription: description.flatMap { sanitize($0, secrets: secrets, limit: 500) },
            retryAfter: retryAfter,
            statusCode: statusCode
        )
    }

    /// The error for a non-2xx response without an RFC 6749 error body.
    static func unexpectedStatus(_ statusCode: Int, retryAfter: Duration?) -> TokenEndpointError {
        switch statusCode {
        case 429:
            TokenEndpointError(.rateLimited, retryAfter: retryAfter, statusCode: statusCode)
        case 500...599:
            TokenEndpointError(.serverError, retryAfter: retryAfter, statusCode: statusCode)
        case 408:
            TokenEndpointError(.timedOut, retryAfter: retryAfter, statusCode: statusCode)
        default:
            TokenEndpointError(
                .malformedResponse,
                retryAfter: retryAfter,
                statusCode: statusCode,
                detail: "it answered HTTP \(statusCode) without an OAuth error body"
            )
        }
    }

    /// A ``malformedResponse`` explaining what is wrong with the body.
    static func malformed(_ detail: String, statusCode: Int? = nil) -> TokenEndpointError {
        TokenEndpointError(.malformedResponse, statusCode: statusCode, detail: detail)
    }

    /// The error for a failure of the HTTP transport.
    static func transport(_ error: HTTPTransportError, host: String) -> TokenEndpointError {
        if error == .timedOut {
            return TokenEndpointError(.timedOut, detail: host)
        }
        if error == .responseTooLarge {
            return malformed("its answer is larger than \(error.limit.map { "\($0) bytes" } ?? "the limit")")
        }
        if error == .invalidRequest {
            return TokenEndpointError(.invalidClientConfiguration, detail: "the token endpoint URL cannot be requested")
        }
        let cause = error.urlErrorCode.map { "URLError \($0.rawValue)" } ?? "the connection failed"
        return TokenEndpointError(.networkFailure, detail: "\(host): \(cause)")
    }

    /// A ``networkFailure`` for an error of an unknown transport, described by its type only (its text could
    /// contain the request).
    static func unknownTransportFailure(_ error: any Error, host: String) -> TokenEndpointError {
        TokenEndpointError(.networkFailure, detail: "\(host): \(type(of: error))")
    }

    /// An ``insecureEndpoint`` naming the scheme and host that were refused.
    static func insecureEndpoint(scheme: String, host: String) -> TokenEndpointError {
        TokenEndpointError(.insecureEndpoint, detail: "\(scheme)://\(host)")
    }

    /// An ``invalidClientConfiguration`` explaining what is missing.
    static func invalidClientConfiguration(_ detail: String) -> TokenEndpointError {
        TokenEndpointError(.invalidClientConfiguration, detail: detail)
    }

    /// A ``redirected`` naming where the endpoint pointed (see ``HTTPResponse/redirectLocation(from:secrets:)``).
    static func redirected(to location: String?, statusCode: Int) -> TokenEndpointError {
        TokenEndpointError(.redirected, statusCode: statusCode, detail: location)
    }

    /// Server-supplied text made safe to show: secrets replaced, only printable ASCII, bounded length.
    package static func sanitize(_ text: String, secrets: [String], limit: Int) -> String {
        var result = text
        for secret in secrets where !secret.isEmpty {
            result = result.replacingOccurrences(of: secret, with: "<redacted>")
        }
        result = String(String.UnicodeScalarView(result.unicodeScalars.filter { (0x20...0x7E).contains($0.value) }))
        if result.count > limit {
            result = String(result.prefix(limit)) + "…"
        }
        return result
    }

    // MARK: - Description

    /// What happened, what the server said (without secrets), and how to fix it — written for a person.
    public var description: String {
        var text = summary
        if let errorDescription, !errorDescription.isEmpty {
            text += " The server said: \"\(errorDescription)\"."
        }
        if let retryAfter {
            text += " It asked to retry after \(retryAfter.components.seconds) s."
        }
        return text + " " + fix
    }

    private var statusText: String {
        statusCode.map { " (HTTP \($0))" } ?? ""
    }

    private var summary: String {
        switch kind {
        case .rejected:
            return "The authorization server refused the token request with \(oauthErrorCode ?? "an error")\(statusText)."
        case .serverError:
            let reported = oauthErrorCode.map { " (\($0))" } ?? ""
            return "The token endpoint reported a server problem\(statusText)\(reported)."
        case .rateLimited:
            return "The token endpoint is rate-limiting this client\(statusText)."
        case .networkFailure:
            return "The token endpoint could not be reached\(detail.map { " (\($0))" } ?? "")."
        case .timedOut:
            return "The token endpoint did not answer in time\(detail.map { " (\($0))" } ?? "")\(statusText)."
        case .malformedResponse:
            return "The token endpoint's answer is not a valid token response\(detail.map { ": \($0)" } ?? "")."
        case .insecureEndpoint:
            return "Refused to send credentials to \(detail ?? "the token endpoint") over plain HTTP."
        case .invalidClientConfiguration:
            return "The OAuth client cannot make this request: \(detail ?? "its configuration is incomplete")."
        case .redirected:
            return detail.map { "The token endpoint redirects to \($0)\(statusText); the redirect was not followed." }
                ?? "The token endpoint answered with a redirect without a usable Location\(statusText)."
        }
    }

    /// What to do about it: sign in again, fix the client or endpoint configuration, or retry later.
    public var fix: String {
        switch kind {
        case .rejected:
            switch oauthErrorCode {
            case "invalid_grant":
                return "The refresh token or credentials are invalid, expired or revoked: sign in again."
            case "invalid_client":
                return "Check the client ID, the client secret and the authentication method (none, "
                    + "client_secret_post or client_secret_basic) registered at the authorization server."
            case "unauthorized_client":
                return "Allow this grant type for the client at the authorization server, or use another grant."
            case "unsupported_grant_type":
                return "The authorization server does not offer this grant type: use one it supports."
            case "invalid_scope":
                return "Request a scope the server grants, or no scope to keep the one originally granted."
            case "invalid_request":
                return "The server considers the request malformed: check the token endpoint URL and the client "
                    + "configuration, and report it if they are right."
            default:
                return "Repeating the request will not help: check the client configuration or sign in again."
            }
        case .serverError, .rateLimited:
            return "The tokens were kept; retry later."
        case .networkFailure, .timedOut:
            return "Check the network connection and the token endpoint URL; the tokens were kept and the request "
                + "can be retried."
        case .malformedResponse:
            return "Check that the token endpoint URL points at the authorization server's token endpoint; the tokens "
                + "were kept and the request can be retried."
        case .insecureEndpoint:
            return "Use an https:// token endpoint; plain http is allowed only for loopback hosts "
                + "(localhost, 127.0.0.0/8, ::1)."
        case .invalidClientConfiguration:
            return "Fix the stored OAuth client: add the client secret or choose the authentication method none."
        case .redirected:
            return (detail == nil ? "Check the token endpoint URL" : "Use that URL as the token endpoint")
                + "; token requests are never sent to a redirect's target, since they carry the client's "
                + "credentials and tokens."
        }
    }
}

extension ErrorCode where Domain == TokenEndpointError {
    /// The server refused the grant with an RFC 6749 error code (see `oauthErrorCode`).
    public static let rejected = Self("rejected")
    /// A 5xx answer, or `server_error` / `temporarily_unavailable`: transient.
    public static let serverError = Self("serverError")
    /// A 429 answer or `slow_down`: transient.
    public static let rateLimited = Self("rateLimited")
    /// The endpoint could not be reached: transient.
    public static let networkFailure = Self("networkFailure")
    /// The endpoint did not answer in time: transient.
    public static let timedOut = Self("timedOut")
    /// The answer is not a token response: transient.
    public static let malformedResponse = Self("malformedResponse")
    /// The endpoint is neither `https` nor on a loopback host; nothing was sent.
    public static let insecureEndpoint = Self("insecureEndpoint")
    /// The client cannot make the request (e.g. a secret is missing); nothing was sent.
    public static let invalidClientConfiguration = Self("invalidClientConfiguration")
    /// The endpoint answered with a redirect, which is not followed.
    public static let redirected = Self("redirected")
}
