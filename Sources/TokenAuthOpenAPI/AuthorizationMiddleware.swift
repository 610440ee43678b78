// Built with the package trait OpenAPI (see Package.swift): without it this module is empty, and an app
// that does not ask for it resolves no swift-openapi-runtime.
#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import TokenAuth

/// A swift-openapi-runtime `ClientMiddleware` that authorizes requests of a generated client with
/// ``AuthManager``'s tokens, and on a rejected token refreshes once and retries once.
///
/// ```swift
/// // The generated client's transport: swift-openapi-urlsession's URLSessionTransport (import OpenAPIURLSession).
/// let client = Client(
///     serverURL: try Servers.Server1.url(),
///     transport: URLSessionTransport(),
///     middlewares: [AuthorizationMiddleware(manager: manager)])
/// ```
///
/// For each operation it sets `Authorization` from a valid token, sends the request, and asks the
/// ``TokenRejectionClassifier`` about non-2xx responses. When the token was rejected it calls
/// ``AuthManager/refresh(rejecting:)`` (which refreshes only if that token is still the current one) and sends the
/// request once more with the same body. A second rejection throws `TokenAuthError` with code
/// `unauthorized`; a missing or rejected session throws the manager's `TokenAuthError`, whose `isLoginRequired` is
/// true. The generated client wraps these in its `ClientError`, whose `underlyingError` is the `TokenAuthError`. Every other response —
/// a `403 insufficient_scope` included — goes back to the generated client, which maps it to the operation's
/// documented outputs.
///
/// **Bodies.** A retry needs the request body a second time. Bodies that can be iterated many times are sent
/// again as they are; single-use bodies are collected in memory first, up to ``maximumReplayableBodySize``. A
/// single-use body whose announced length is larger is streamed and not retried: if its token is rejected, the
/// refresh still happens (so the next request succeeds) and `unauthorized` is thrown. A single-use body of unknown
/// length that turns out larger than the limit fails the request.
///
/// The bodies of non-2xx responses are collected (up to ``maximumErrorBodySize``) so the classifier can read
/// them; 2xx bodies stream through untouched.
///
/// **Plain HTTP and redirects.** Before taking a token, the middleware refuses a `baseURL` that is plain `http` to
/// a host other than a loopback one, with `TokenAuthError` code `insecureURL` (unless
/// ``allowsInsecureHTTP``). That is all it can guarantee: redirects happen inside the generated client's
/// transport, after the middleware, so what a redirected request carries is that transport's rule. Use a
/// transport that drops `Authorization` when a redirect leaves the origin, as TokenAuthURLSession's
/// `URLSessionHTTPTransport` does.
public struct AuthorizationMiddleware: ClientMiddleware {
    /// Where tokens come from.
    public let manager: AuthManager
    /// What counts as a rejected token.
    public let classifier: TokenRejectionClassifier
    /// The largest single-use request body kept in memory so that it can be sent again. Default 4 MiB.
    public let maximumReplayableBodySize: Int
    /// The largest non-2xx response body collected for the classifier. Default 1 MiB.
    public let maximumErrorBodySize: Int
    /// Operation IDs sent without a token and without retries, for operations that need no authentication.
    public let unauthenticatedOperations: Set<String>
    /// Whether the token may be sent over plain HTTP to hosts other than loopback ones, for development only.
    public let allowsInsecureHTTP: Bool
    /// What signs the proofs of DPoP tokens (RFC 9449), or `nil` when only bearer tokens can be sent.
    public let dpop: DPoP?

    /// Creates the middleware.
    ///
    /// - Parameter dpop: What signs the proofs of DPoP tokens: `nil` takes the manager's
    ///   (`AuthManager.Configuration.dpop`); without either, a DPoP token is refused with `proofKeyUnavailable`.
    public init(
        manager: AuthManager,
        classifier: TokenRejectionClassifier = .standard,
        maximumReplayableBodySize: Int = 4 * 1024 * 1024,
        maximumErrorBodySize: Int = 1024 * 1024,
        unauthenticatedOperations: Set<String> = [],
        allowsInsecureHTTP: Bool = false,
        dpop: DPoP? = nil
    ) {
        self.dpop = dpop ?? manager.configuration.dpop
        self.manager = manager
        self.classifier = classifier
        self.maximumReplayableBodySize = maximumReplayableBodySize
        self.maximumErrorBodySize = maximumErrorBodySize
        self.unauthenticatedOperations = unauthenticatedOperations
        self.allowsInsecureHTTP = allowsInsecureHTTP
    }

    /// Authorizes `request`, sends it through `next`, and on a rejected token refreshes once and sends it once more.
    ///
    /// - Throws: `TokenAuthError` (a sign-in needed, `unauthorized`, `insecureURL`, or the token endpoint failed),
    ///   what `next` throws, or `CancellationError`.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        if unauthenticatedOperations.contains(operationID) {
            return try await next(request, body, baseURL)
        }
        let exchange = AuthorizedExchange(
            manager: manager, classifier: classifier, insufficientScope: .passesThrough,
            allowsInsecureHTTP: allowsInsecureHTTP, dpop: dpop)
        try exchange.checkTokenMayBeSent(to: baseURL)
        let auth = try await exchange.validAuth()
        let (sentBody, replayable) = try await replayable(body)
        // The request as the server receives it, for a DPoP proof's `htu` and the origin its nonces are kept for:
        // the generated client's request has only the operation's path, relative to `baseURL`.
        let target = Self.absolute(request, baseURL: baseURL)
        return try await exchange.run(authorizedWith: auth, canRetry: replayable) { auth in
            let authorized = try await exchange.authorized(request, with: auth, at: target)
            let answer = try await inspect(try await next(authorized, sentBody, baseURL))
            exchange.noteAnswer(answer.response, to: target)
            return answer
        }
    }

    /// `request` with `baseURL`'s scheme and authority, and its path after `baseURL`'s.
    static func absolute(_ request: HTTPRequest, baseURL: URL) -> HTTPRequest {
        var absolute = request
        absolute.scheme = baseURL.scheme
        absolute.authority = baseURL.host.map { host in baseURL.port.map { "\(host):\($0)" } ?? host }
        var basePath = baseURL.path
        while basePath.hasSuffix("/") { basePath.removeLast() }
        absolute.path = basePath + (request.path ?? "")
        return absolute
    }

    /// The body to send (possibly collected into memory) and whether it can be sent twice.
    private func replayable(_ body: HTTPBody?) async throws -> (HTTPBody?, Bool) {
        guard let body, body.iterationBehavior == .single else { return (body, true) }
        if case .known(let length) = body.length, length > Int64(maximumReplayableBodySize) {
            return (body, false)
        }
        let data = try await Data(collecting: body, upTo: maximumReplayableBodySize)
        return (HTTPBody(data), true)
    }

    /// A response with, for non-2xx ones, the body collected for the classifier (and handed on as collected);
    /// 2xx bodies stream through untouched.
    private func inspect(
        _ received: (HTTPResponse, HTTPBody?)
    ) async throws -> AuthorizedExchange.Attempt<(HTTPResponse, HTTPBody?)> {
        let (response, body) = received
        guard response.status.kind != .successful else {
            return AuthorizedExchange.Attempt(response: response, body: Data(), value: (response, body))
        }
        var data = Data()
        if let body { data = try await Data(collecting: body, upTo: maximumErrorBodySize) }
        return AuthorizedExchange.Attempt(response: response, body: data, value: (response, body == nil ? nil : HTTPBody(data)))
    }
}
#endif  // OpenAPI
