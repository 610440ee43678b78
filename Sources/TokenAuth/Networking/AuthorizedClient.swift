#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

import Logging

/// Sends HTTP requests with a valid access token, refreshing it once and retrying once when the server rejects it.
///
/// ```swift
/// let manager = AuthManager(store: store, refresher: TokenEndpointClient(client: oauthClient, transport: transport))
/// let client = AuthorizedClient(manager: manager, transport: transport)
/// let profile = try await client.load(Profile.self, from: URL(string: "https://api.example.com/me")!)
/// ```
///
/// What it does with each request that requires authentication:
/// 1. Takes a valid token from the ``AuthManager`` — refreshing first when it is about to expire — and sets
///    `Authorization` from it (``Auth/authorizationHeaderValue``: `Bearer` unless the stored token type is
///    another). A `DPoP` token (RFC 9449) also gets a `DPoP` proof from the session's key, signed by ``DPoP``; a
///    resource that asks for a nonce (`use_dpop_nonce`) gets the request once more with it, which is not a
///    rejection, and one that refuses the proof throws ``TokenAuthError/Code/proofRefused``.
/// 2. If the ``TokenRejectionClassifier`` says the response rejects the token, it tells the manager which token
///    was rejected (``AuthManager/refresh(rejecting:)``). The manager refreshes only if that token is still the
///    current one, so a burst of requests that left with the same expired token causes one refresh, not one each.
/// 3. It sends the request once more, with the same body bytes. If that is rejected too, it throws
///    ``TokenAuthError/Code/unauthorized``: never a loop, never a second refresh for one request.
///
/// Other outcomes: a missing or rejected session throws ``TokenAuthError/isLoginRequired`` (show the
/// sign-in screen); a `403 insufficient_scope` throws ``TokenAuthError/Code/insufficientScope`` without a
/// refresh; any other response, whatever its status, is returned. Requests with `requiresAuthentication: false`
/// pass through to the transport untouched and never touch the manager.
///
/// **Plain HTTP.** A request that needs a token must go to an `https` URL or to plain `http` on a loopback host;
/// any other URL throws ``TokenAuthError/Code/insecureURL`` before a token is taken or anything is sent.
/// `allowsInsecureHTTP: true` lifts the rule, for development servers only.
///
/// **Bodies.** Request bodies are `Data`, so a retried request always carries the same bytes; there is no
/// streaming body that could not be replayed. **Redirects** are the transport's business: ``HTTPTransport``
/// requires that `Authorization` is never forwarded to another origin, and `URLSessionHTTPTransport` strips it. As a
/// change of scheme is a change of origin, a redirect from `https` to plain `http` never carries the token.
/// **Cancellation** of the calling task stops the request at once; a refresh it was waiting for goes on for the
/// other requests sharing it.
///
/// Copies share the manager, the transport and the queue of the callback API.
public struct AuthorizedClient: Sendable {
    /// Where tokens come from.
    public var manager: AuthManager { exchange.manager }
    /// How requests are sent; share it with the manager's ``TokenEndpointClient``.
    public let transport: any HTTPTransport
    /// What counts as a rejected token.
    public var classifier: TokenRejectionClassifier { exchange.classifier }
    /// The decoder ``load(_:for:body:requiresAuthentication:decoder:)`` uses unless given another.
    public let decoder: JSONDecoder
    /// Whether the token may be sent over plain HTTP to hosts other than loopback ones. `false` unless set.
    public var allowsInsecureHTTP: Bool { exchange.allowsInsecureHTTP }

    let exchange: AuthorizedExchange
    let callbacks: CallbackPipeline

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - manager: Hands out and refreshes tokens.
    ///   - transport: Sends the requests: `URLSessionHTTPTransport` (module `TokenAuthURLSession`) or your own. Pass the
    ///     transport the manager's token client uses, so both share one session.
    ///   - classifier: Decides which responses reject the token. The default follows RFC 6750.
    ///   - decoder: The JSON decoder for `load`.
    ///   - allowsInsecureHTTP: `true` to send the token over plain HTTP to any host, for a development server
    ///     without TLS. Never in production: anyone on the network path can read and reuse the token. Loopback
    ///     hosts are allowed without it.
    ///   - logger: Where each request is logged: method and URL without its query at trace level, then the status
    ///     and duration (or the error's type and code) at debug level, and a rejected token with its retry. Never a
    ///     token, header or body.
    ///   - dpop: What signs the proofs of DPoP tokens (RFC 9449): give the manager's ``TokenEndpointClient`` the same
    ///     value. `nil` takes the manager's (``AuthManager/Configuration/dpop``); without either, a DPoP token is
    ///     refused with ``TokenAuthError/Code/proofKeyUnavailable``.
    public init(
        manager: AuthManager,
        transport: any HTTPTransport,
        classifier: TokenRejectionClassifier = .standard,
        decoder: JSONDecoder = JSONDecoder(),
        allowsInsecureHTTP: Bool = false,
        logger: Logger = Logger(label: "TokenAuth.AuthorizedClient"),
        dpop: DPoP? = nil
    ) {
        exchange = AuthorizedExchange(
            manager: manager, classifier: classifier, insufficientScope: .throwsError,
            allowsInsecureHTTP: allowsInsecureHTTP, logger: logger, dpop: dpop ?? manager.configuration.dpop)
        self.transport = transport
        self.decoder = decoder
        callbacks = CallbackPipeline(exchange: exchange, transport: transport)
    }

    /// Sends a request and returns the response and its whole body.
    ///
    /// - Parameters:
    ///   - request: The request. With `requiresAuthentication`, its `Authorization` field is replaced.
    ///   - body: The request body, sent again unchanged if the request is retried.
    ///   - requiresAuthentication: `false` for endpoints that need no token: the request is sent as it is.
    /// - Returns: The response, whatever its status, except for the statuses described below.
    /// - Throws: ``TokenAuthError`` — a sign-in is needed (``TokenAuthError/isLoginRequired``), the token was
    ///   rejected (`unauthorized`, `insufficientScope`), the URL is refused (`insecureURL`), the token endpoint failed
    ///   (``TokenAuthError/isTransient`` when the tokens were kept), no response arrived — or the store's own error,
    ///   or `CancellationError`.
    public func send(
        _ request: HTTPRequest,
        body: Data? = nil,
        requiresAuthentication: Bool = true
    ) async throws -> (HTTPResponse, Data) {
        let metadata: Logger.Metadata = [
            "request": "\(LogRedaction.request(request))", "authenticated": "\(requiresAuthentication)",
        ]
        let outcome = { (answer: (HTTPResponse, Data)) -> Logger.Metadata in ["status": "\(answer.0.status.code)"] }
        return try await exchange.logger.timed("authorized request", metadata, outcome: outcome) {
            try await exchange.send(request, body: body, through: transport, requiresAuthentication: requiresAuthentication)
        }
    }

    /// Sends a request and decodes its 2xx JSON body.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - request: The request.
    ///   - body: The request body.
    ///   - requiresAuthentication: `false` for endpoints that need no token.
    ///   - decoder: The decoder to use instead of ``decoder``.
    /// - Throws: What ``send(_:body:requiresAuthentication:)`` throws, and ``TokenAuthError`` with
    ///   `unacceptableStatus` for a non-2xx response or `decodingFailed` for a body that does not decode.
    public func load<T: Decodable>(
        _ type: T.Type = T.self,
        for request: HTTPRequest,
        body: Data? = nil,
        requiresAuthentication: Bool = true,
        decoder: JSONDecoder? = nil
    ) async throws -> T {
        let (response, data) = try await send(request, body: body, requiresAuthentication: requiresAuthentication)
        guard response.status.kind == .successful else {
            throw TokenAuthError.unacceptableStatus(response, body: data)
        }
        do {
            return try (decoder ?? self.decoder).decode(T.self, from: data)
        } catch {
            throw TokenAuthError.decodingFailed(response, body: data, error: error)
        }
    }

    /// Fetches `url` with `GET` and decodes its 2xx JSON body.
    ///
    /// - Throws: What ``load(_:for:body:requiresAuthentication:decoder:)`` throws.
    public func load<T: Decodable>(
        _ type: T.Type = T.self,
        from url: URL,
        requiresAuthentication: Bool = true,
        decoder: JSONDecoder? = nil
    ) async throws -> T {
        try await load(
            type, for: HTTPRequest(method: .get, url: url), requiresAuthentication: requiresAuthentication,
            decoder: decoder)
    }
}
