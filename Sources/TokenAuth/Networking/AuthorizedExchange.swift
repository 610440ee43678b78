#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import Logging

/// The one request algorithm behind every front door — ``AuthorizedClient``'s async and callback APIs and the
/// OpenAPI middleware: authorize, send, and on a rejected token refresh once and retry once.
///
/// The front doors differ only in how they send (a transport, a middleware's `next`), whether a request can be
/// sent twice, and what a `403 insufficient_scope` does; those are its parameters.
package struct AuthorizedExchange: Sendable {
    /// What a response whose `Bearer` challenge says `insufficient_scope` (RFC 6750 §3.1) does: a permission error
    /// that a refresh cannot fix, so it never causes one.
    package enum InsufficientScope: Sendable {
        /// Throw ``TokenAuthError/Code/insufficientScope``.
        case throwsError
        /// Return the response to the caller, as any other response.
        case passesThrough
    }

    /// One sent request: its response head, the body the classifier reads, and what the front door returns.
    package struct Attempt<Value> {
        package let response: HTTPResponse
        package let body: Data
        package let value: Value

        package init(response: HTTPResponse, body: Data, value: Value) {
            self.response = response
            self.body = body
            self.value = value
        }
    }

    package let manager: AuthManager
    package let classifier: TokenRejectionClassifier
    package let insufficientScope: InsufficientScope
    /// Whether tokens may go over plain HTTP to any host, not only to loopback ones: for development only.
    package let allowsInsecureHTTP: Bool
    /// Where a rejected token and the retry are logged.
    package let logger: Logger

    package init(
        manager: AuthManager, classifier: TokenRejectionClassifier, insufficientScope: InsufficientScope,
        allowsInsecureHTTP: Bool = false, logger: Logger = Logger(label: "TokenAuth.AuthorizedClient")
    ) {
        self.logger = logger
        self.manager = manager
        self.classifier = classifier
        self.insufficientScope = insufficientScope
        self.allowsInsecureHTTP = allowsInsecureHTTP
    }

    /// Throws ``TokenAuthError/Code/insecureURL`` unless a token may be sent to `url`: `https`, plain `http`
    /// to a loopback host, or — with ``allowsInsecureHTTP`` — plain `http` to any host. Called before a token is
    /// taken (or refreshed) for the request. A request without an absolute URL passes: the transport refuses it.
    package func checkTokenMayBeSent(to url: URL?) throws {
        guard let url, !url.canCarryCredentials else { return }
        if allowsInsecureHTTP, url.scheme?.lowercased() == "http", url.host?.isEmpty == false { return }
        throw TokenAuthError.insecureURL(url)
    }

    /// A valid token bundle from the manager.
    package func validAuth() async throws -> Auth {
        try await manager.validAuth()
    }

    /// Sends with a valid token (or `auth`, when the caller already has one); if the server rejects that token,
    /// asks the manager to replace it (no refresh if it was already replaced) and sends once more.
    ///
    /// - Parameters:
    ///   - auth: The token to send first; `nil` takes a valid one from the manager.
    ///   - canRetry: Whether the request can be sent a second time. When it cannot, a rejected token still causes
    ///     the refresh (so the next request succeeds) and then ``TokenAuthError/Code/unauthorized``.
    ///   - send: Sends the request authorized with the given tokens (see ``authorize(_:with:)``).
    /// - Throws: ``TokenAuthError`` (`loginRequired`, `unauthorized`, `insufficientScope`), and whatever
    ///   the manager or `send` throws.
    package func run<Value>(
        authorizedWith auth: Auth? = nil,
        canRetry: Bool = true,
        _ send: (Auth) async throws -> Attempt<Value>
    ) async throws -> Value {
        let auth = if let auth { auth } else { try await validAuth() }
        let first = try await send(auth)
        guard try isTokenRejected(first) else { return first.value }
        logger.debug("the server rejected the token; refreshing once", metadata: ["status": "\(first.response.status.code)"])

        let replacement = try await manager.refresh(rejecting: auth.accessToken)
        // Without a new token, sending again would be rejected again.
        guard canRetry, replacement.accessToken != auth.accessToken else {
            throw TokenAuthError.unauthorized(first.response, body: first.body)
        }
        try Task.checkCancellation()
        logger.debug("retrying once with the new token")
        let second = try await send(replacement)
        if try isTokenRejected(second) {
            logger.debug("the server rejected the new token too", metadata: ["status": "\(second.response.status.code)"])
            throw TokenAuthError.unauthorized(second.response, body: second.body)
        }
        return second.value
    }

    /// Whether `attempt` rejects its token; throws for `insufficient_scope` when so configured.
    private func isTokenRejected<Value>(_ attempt: Attempt<Value>) throws -> Bool {
        if Self.isInsufficientScope(attempt.response) {
            if insufficientScope == .throwsError {
                throw TokenAuthError.insufficientScope(attempt.response, body: attempt.body)
            }
            return false
        }
        return classifier.isTokenRejected(attempt.response, body: attempt.body)
    }

    /// `request` with its `Authorization` field set to present `auth`'s token, replacing any the caller set.
    package static func authorize(_ request: HTTPRequest, with auth: Auth) -> HTTPRequest {
        var request = request
        request.headerFields[.authorization] = auth.authorizationHeaderValue
        return request
    }

    /// Whether `response` is an RFC 6750 `insufficient_scope` answer.
    package static func isInsufficientScope(_ response: HTTPResponse) -> Bool {
        guard response.status.kind == .clientError else { return false }
        return AuthenticationChallenge.challenges(in: response).contains {
            $0.hasScheme("Bearer") && $0.error == "insufficient_scope"
        }
    }
}

extension AuthorizedExchange {
    /// Sends `request` through `transport` by ``run(authorizedWith:canRetry:_:)``, or untouched when it needs no
    /// authentication: what ``AuthorizedClient`` does for each request.
    package func send(
        _ request: HTTPRequest,
        body: Data?,
        through transport: any HTTPTransport,
        authorizedWith auth: Auth? = nil,
        requiresAuthentication: Bool = true
    ) async throws -> (HTTPResponse, Data) {
        guard requiresAuthentication else { return try await transport.send(request, body: body) }
        try checkTokenMayBeSent(to: request.url)
        return try await run(authorizedWith: auth) { auth in
            let (response, data) = try await transport.send(Self.authorize(request, with: auth), body: body)
            return Attempt(response: response, body: data, value: (response, data))
        }
    }
}
