import TokenAuth
/// Why a device authorization sign-in (RFC 8628) ended without tokens, classified as permanent or transient.
///
/// - **Permanent** (``isPermanent``): the user declined (``accessDenied``), the code expired (``expired``), the
///   device authorization endpoint refused the request (``rejected``, e.g. `invalid_client` or `invalid_scope`),
///   or the request was refused before sending (``insecureEndpoint``, ``invalidClientConfiguration``). Starting
///   again shows a new code; only ``rejected`` and the configuration errors need a change first.
/// - **Transient** (``isTransient``): the device authorization endpoint could not be used just now
///   (``unavailable``: no answer, a 5xx, 408 or 429 status) or answered with something that is not a device
///   authorization response (``malformedResponse``).
///
/// Errors of the token endpoint other than the device flow's own codes reach the caller as `TokenAuthError`.
/// Compare with the static members (`error == .accessDenied`); equality looks at the kind of failure only.
/// Descriptions never contain the device code or the client secret.
public struct DeviceAuthorizationError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case accessDenied
        case expired
        case rejected
        case insecureEndpoint
        case invalidClientConfiguration
        case unavailable
        case malformedResponse
    }

    private let code: Code
    /// The RFC 6749 §5.2 / RFC 8628 §3.5 `error` code the server sent, if any (`access_denied`,
    /// `expired_token`, `invalid_client` …); `nil` when the client gave up on its own.
    public let oauthErrorCode: String?
    /// The server's `error_description`, trimmed to printable ASCII and 500 characters, with secrets redacted.
    public let errorDescription: String?
    /// The HTTP status of the answer, when there was one.
    public let statusCode: Int?
    private let detail: String?

    private init(
        _ code: Code, oauthErrorCode: String? = nil, errorDescription: String? = nil, statusCode: Int? = nil,
        detail: String? = nil
    ) {
        self.code = code
        self.oauthErrorCode = oauthErrorCode
        self.errorDescription = errorDescription
        self.statusCode = statusCode
        self.detail = detail
    }

    /// The user declined the request (`access_denied`).
    public static let accessDenied = DeviceAuthorizationError(.accessDenied)
    /// The device code expired before the user approved it: the server said `expired_token`, or its `expires_in`
    /// passed without a decision.
    public static let expired = DeviceAuthorizationError(.expired)
    /// The device authorization endpoint refused the request with an OAuth error such as `invalid_client`,
    /// `unauthorized_client` or `invalid_scope`.
    public static let rejected = DeviceAuthorizationError(.rejected)
    /// The device authorization endpoint is neither HTTPS nor on a loopback host; nothing was sent.
    public static let insecureEndpoint = DeviceAuthorizationError(.insecureEndpoint)
    /// The client's authentication method needs a client secret and none was given; nothing was sent.
    public static let invalidClientConfiguration = DeviceAuthorizationError(.invalidClientConfiguration)
    /// The device authorization endpoint could not be reached, did not answer in time, or answered 5xx, 408 or 429.
    public static let unavailable = DeviceAuthorizationError(.unavailable)
    /// The device authorization endpoint's answer lacks `device_code`, `user_code`, `verification_uri` or
    /// `expires_in`, or is not JSON.
    public static let malformedResponse = DeviceAuthorizationError(.malformedResponse)

    /// Whether trying again later may succeed without any change.
    public var isTransient: Bool { code == .unavailable || code == .malformedResponse }

    /// Whether trying again cannot succeed as things are (a declined or expired code needs a new sign-in; a
    /// rejection or configuration error needs a fix).
    public var isPermanent: Bool { !isTransient }

    /// Two errors are equal when they are the same kind of failure.
    public static func == (lhs: DeviceAuthorizationError, rhs: DeviceAuthorizationError) -> Bool {
        lhs.code == rhs.code
    }

    // MARK: - Construction

    static func accessDenied(_ error: TokenAuthError) -> DeviceAuthorizationError {
        DeviceAuthorizationError(
            .accessDenied, oauthErrorCode: error.oauthErrorCode, errorDescription: error.oauthError?.errorDescription,
            statusCode: error.statusCode)
    }

    static func expired(_ error: TokenAuthError?, lifetime: Duration) -> DeviceAuthorizationError {
        DeviceAuthorizationError(
            .expired, oauthErrorCode: error?.oauthErrorCode, errorDescription: error?.oauthError?.errorDescription,
            statusCode: error?.statusCode,
            detail: error == nil ? "no decision within its lifetime of \(lifetime.components.seconds) s" : "the server said so")
    }

    static func rejected(code: String, description: String?, statusCode: Int, secrets: [String]) -> DeviceAuthorizationError {
        DeviceAuthorizationError(
            .rejected, oauthErrorCode: TokenAuthError.sanitize(code, secrets: secrets, limit: 100),
            errorDescription: description.map { TokenAuthError.sanitize($0, secrets: secrets, limit: 500) },
            statusCode: statusCode)
    }

    static func insecureEndpoint(scheme: String, host: String) -> DeviceAuthorizationError {
        DeviceAuthorizationError(.insecureEndpoint, detail: "\(scheme)://\(host)")
    }

    static func invalidClientConfiguration(_ detail: String) -> DeviceAuthorizationError {
        DeviceAuthorizationError(.invalidClientConfiguration, detail: detail)
    }

    static func unavailable(statusCode: Int?, cause: String) -> DeviceAuthorizationError {
        DeviceAuthorizationError(.unavailable, statusCode: statusCode, detail: cause)
    }

    static func malformed(_ detail: String, statusCode: Int?) -> DeviceAuthorizationError {
        DeviceAuthorizationError(.malformedResponse, statusCode: statusCode, detail: detail)
    }

    // MARK: - Description

    /// What happened, what the server said (without secrets), and how to fix it — written for a person.
    public var description: String {
        var text = summary
        if let errorDescription, !errorDescription.isEmpty {
            text += " The server said: \"\(errorDescription)\"."
        }
        return text + " " + fix
    }

    private var statusText: String {
        statusCode.map { " (HTTP \($0))" } ?? ""
    }

    private var summary: String {
        switch code {
        case .accessDenied:
            return "The sign-in was declined at the authorization server."
        case .expired:
            return "The device code expired before the sign-in was approved (\(detail ?? "expired_token"))."
        case .rejected:
            return "The device authorization endpoint refused the request with \(oauthErrorCode ?? "an error")\(statusText)."
        case .insecureEndpoint:
            return "Refused to send the client's credentials to \(detail ?? "the device authorization endpoint") over plain HTTP."
        case .invalidClientConfiguration:
            return "The OAuth client cannot make this request: \(detail ?? "its configuration is incomplete")."
        case .unavailable:
            return "The device authorization endpoint could not be used just now\(statusText)\(detail.map { ": \($0)" } ?? "")."
        case .malformedResponse:
            return "The device authorization endpoint's answer is not a device authorization response\(detail.map { ": \($0)" } ?? "")."
        }
    }

    /// What to do about it.
    public var fix: String {
        switch code {
        case .accessDenied:
            return "Start the sign-in again if it was declined by mistake."
        case .expired:
            return "Start the sign-in again and enter the new code sooner."
        case .rejected:
            switch oauthErrorCode {
            case "invalid_client", "unauthorized_client":
                return "Check the client ID and secret, and that the device authorization grant is enabled for the "
                    + "client at the authorization server."
            case "invalid_scope":
                return "Request a scope the server grants."
            default:
                return "Repeating the request will not help: check the client configuration."
            }
        case .insecureEndpoint:
            return "Use an https:// endpoint; plain http is allowed only for loopback hosts (localhost, 127.0.0.0/8, ::1)."
        case .invalidClientConfiguration:
            return "Give the client secret, or choose the authentication method none."
        case .unavailable:
            return "Check the network connection and retry later."
        case .malformedResponse:
            return "Check that the endpoint URL is the server's device authorization endpoint; retry later."
        }
    }
}
