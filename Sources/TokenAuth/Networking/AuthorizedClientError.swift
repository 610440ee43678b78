import Foundation
import HTTPTypes

/// Why ``AuthorizedClient`` did not return a response.
///
/// Check ``code``: `error.code == .loginRequired` is the signal to show a sign-in screen. Errors that are not about
/// authorization pass through unwrapped: ``HTTPTransportError`` (no response), ``AuthError`` with
/// ``AuthError/Code/transient`` or ``AuthError/Code/excessiveRefresh`` (the token endpoint), the token store's
/// own errors, and `CancellationError`. Descriptions never contain tokens or bodies.
public struct AuthorizedClientError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case unauthorized, loginRequired, insufficientScope, unacceptableStatus, decodingFailed, insecureURL
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The server rejected the token again after a refresh, or rejected a request that could not be retried.
        public static let unauthorized = Code(.unauthorized)
        /// There is no usable session: nothing is stored, the refresh token was rejected, or the user logged out.
        /// Show the sign-in screen; ``AuthorizedClientError/authError`` says why.
        public static let loginRequired = Code(.loginRequired)
        /// The token is valid but lacks the scope the resource needs (`403 insufficient_scope`): a permission
        /// problem that a refresh cannot fix.
        public static let insufficientScope = Code(.insufficientScope)
        /// `load` got a response whose status is not 2xx.
        public static let unacceptableStatus = Code(.unacceptableStatus)
        /// `load` got a 2xx response whose body did not decode.
        public static let decodingFailed = Code(.decodingFailed)
        /// The request's URL is plain `http` to a host that is not a loopback host, where anyone on the network
        /// could read the token: nothing was sent and no token was taken for it. A configuration error, not a
        /// transient one.
        public static let insecureURL = Code(.insecureURL)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// The response status, when a response arrived.
    public let status: HTTPResponse.Status?
    /// The response's RFC 6750 challenge: its `Bearer` challenge, or else its first one.
    public let challenge: AuthenticationChallenge?
    /// The response body, when a response arrived.
    public let body: Data?
    /// The ``AuthManager`` failure behind ``Code/loginRequired``.
    public let authError: AuthError?
    /// What went wrong while decoding, for ``Code/decodingFailed``.
    public let decodingFailure: String?
    /// The scheme, host and port refused for ``Code/insecureURL``.
    private let refusedOrigin: String?

    private init(
        _ code: Code, status: HTTPResponse.Status? = nil, challenge: AuthenticationChallenge? = nil, body: Data? = nil,
        authError: AuthError? = nil, decodingFailure: String? = nil, refusedOrigin: String? = nil
    ) {
        self.code = code
        self.status = status
        self.challenge = challenge
        self.body = body
        self.authError = authError
        self.decodingFailure = decodingFailure
        self.refusedOrigin = refusedOrigin
    }

    private init(_ code: Code, response: HTTPResponse, body: Data) {
        let challenges = AuthenticationChallenge.challenges(in: response)
        self.init(
            code, status: response.status, challenge: challenges.first { $0.hasScheme("Bearer") } ?? challenges.first,
            body: body)
    }

    /// The server rejected the token of a request that was already retried once, or that could not be retried.
    package static func unauthorized(_ response: HTTPResponse, body: Data) -> AuthorizedClientError {
        AuthorizedClientError(.unauthorized, response: response, body: body)
    }

    /// A `403 insufficient_scope` answer.
    package static func insufficientScope(_ response: HTTPResponse, body: Data) -> AuthorizedClientError {
        AuthorizedClientError(.insufficientScope, response: response, body: body)
    }

    /// A non-2xx status where `load` needed a 2xx one.
    package static func unacceptableStatus(_ response: HTTPResponse, body: Data) -> AuthorizedClientError {
        AuthorizedClientError(.unacceptableStatus, response: response, body: body)
    }

    /// A 2xx body that did not decode.
    package static func decodingFailed(_ response: HTTPResponse, body: Data, error: any Error) -> AuthorizedClientError {
        AuthorizedClientError(.decodingFailed, status: response.status, body: body, decodingFailure: "\(error)")
    }

    /// A request to `url` refused because it would carry the token over plain HTTP. Names only the scheme, host
    /// and port: the path and query may hold secrets of their own.
    package static func insecureURL(_ url: URL) -> AuthorizedClientError {
        let port = url.port.map { ":\($0)" } ?? ""
        return AuthorizedClientError(.insecureURL, refusedOrigin: "\(url.scheme ?? "?")://\(url.host ?? "?")\(port)")
    }

    /// The session is gone: `error` is ``AuthError/Code/loginRequired``.
    package static func loginRequired(_ error: AuthError) -> AuthorizedClientError {
        AuthorizedClientError(.loginRequired, authError: error)
    }

    /// Runs `body`, turning a ``AuthError/Code/loginRequired`` failure into ``Code/loginRequired``.
    package static func mappingLoginRequired<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AuthError where error.code == .loginRequired {
            throw AuthorizedClientError.loginRequired(error)
        }
    }

    /// Whether the user has to sign in: show the sign-in screen.
    public var isLoginRequired: Bool { code == .loginRequired }

    /// What to do about it.
    public var fix: String {
        switch code {
        case .unauthorized: "Check the client's scope and audience, or sign in again."
        case .loginRequired: authError?.fix ?? "Sign in again."
        case .insufficientScope: "Sign in again asking for the scope the resource needs; refreshing does not widen it."
        case .unacceptableStatus: "Read the error's body for the server's explanation."
        case .insecureURL: "Use an https:// URL, or allowsInsecureHTTP for development."
        default: "Check that the request's URL and the decoded type match the API."
        }
    }

    /// What happened and what to do.
    public var description: String {
        let status = self.status.map { "\($0.code)" } ?? "no status"
        let challenge = self.challenge.map { challenge in
            [challenge.error, challenge.errorDescription.map { "\"\($0)\"" }].compactMap { $0 }.joined(separator: " ")
        }.flatMap { $0.isEmpty ? nil : " (\($0))" } ?? ""
        switch code {
        case .unauthorized:
            return "The server rejected the access token (\(status)\(challenge)) even after a refresh. The token "
                + "endpoint issues tokens this resource does not accept: check the client's scope and audience, "
                + "or sign in again."
        case .loginRequired:
            return authError.map { "\($0)" } ?? "Sign-in required. Sign in again."
        case .insufficientScope:
            let scope = self.challenge?.scope.map { " It needs the scope \"\($0)\"." } ?? ""
            return "The access token lacks the permission this resource needs (\(status)\(challenge)).\(scope) "
                + "Sign in again asking for that scope; refreshing does not widen it."
        case .unacceptableStatus:
            return "The server answered \(status)\(challenge) where a successful response was expected. Read the "
                + "error's body for the server's explanation."
        case .insecureURL:
            return "Refused to send the access token to \(refusedOrigin ?? "the server") over plain HTTP, where anyone "
                + "on the network could read it; nothing was sent. Use an https:// URL. Plain http is allowed to "
                + "loopback hosts (localhost, 127.0.0.0/8, ::1), and to other hosts only with allowsInsecureHTTP, "
                + "for development."
        default:
            return "The response body is not the expected JSON: \(decodingFailure ?? "it did not decode"). Check "
                + "that the request's URL and the decoded type match the API."
        }
    }
}
