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
    /// Signs the proofs of DPoP tokens, or `nil` when only bearer tokens can be sent.
    package let dpop: DPoP?

    package init(
        manager: AuthManager, classifier: TokenRejectionClassifier, insufficientScope: InsufficientScope,
        allowsInsecureHTTP: Bool = false, logger: Logger = Logger(label: "TokenAuth.AuthorizedClient"), dpop: DPoP? = nil
    ) {
        self.logger = logger
        self.dpop = dpop
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
    ///   - send: Sends the request authorized with the given tokens (see ``authorized(_:with:)``), and tells
    ///     ``noteAnswer(_:to:)`` what came back.
    /// - Throws: ``TokenAuthError`` (`loginRequired`, `unauthorized`, `insufficientScope`), and whatever
    ///   the manager or `send` throws.
    package func run<Value>(
        authorizedWith auth: Auth? = nil,
        canRetry: Bool = true,
        _ send: (Auth) async throws -> Attempt<Value>
    ) async throws -> Value {
        let auth = if let auth { auth } else { try await validAuth() }
        let first = try await attempt(auth, canRetry: canRetry, send)
        guard try isTokenRejected(first) else { return first.value }
        logger.debug("the server rejected the token; refreshing once", metadata: ["status": "\(first.response.status.code)"])

        let replacement = try await manager.refresh(rejecting: auth.accessToken)
        // Without a new token, sending again would be rejected again.
        guard canRetry, replacement.accessToken != auth.accessToken else {
            throw TokenAuthError.unauthorized(first.response, body: first.body)
        }
        try Task.checkCancellation()
        logger.debug("retrying once with the new token")
        let second = try await attempt(replacement, canRetry: true, send)
        if try isTokenRejected(second) {
            logger.debug("the server rejected the new token too", metadata: ["status": "\(second.response.status.code)"])
            throw TokenAuthError.unauthorized(second.response, body: second.body)
        }
        return second.value
    }

    /// Sends with `auth`. A DPoP resource that asks for a nonce it gave (`use_dpop_nonce`, RFC 9449 §9) gets the request
    /// once more with it — not a rejected token; one that refuses the proof (`invalid_dpop_proof`) is
    /// ``TokenAuthError/Code/proofRefused``.
    private func attempt<Value>(
        _ auth: Auth, canRetry: Bool, _ send: (Auth) async throws -> Attempt<Value>
    ) async throws -> Attempt<Value> {
        let first = try await send(auth)
        guard auth.isDPoPBound else { return first }
        guard canRetry, Self.challenge(in: first.response, error: "use_dpop_nonce") != nil,
            first.response.headerFields[DPoP.nonceField] != nil
        else { return try proofAccepted(first) }
        logger.debug("the resource asked for a DPoP nonce; sending once more with it")
        try Task.checkCancellation()
        return try proofAccepted(try await send(auth))
    }

    /// `attempt`, unless its resource refused the DPoP proof.
    private func proofAccepted<Value>(_ attempt: Attempt<Value>) throws -> Attempt<Value> {
        guard let refusal = Self.challenge(in: attempt.response, error: "invalid_dpop_proof") else { return attempt }
        throw TokenAuthError.proofRefused(
            by: "resource", statusCode: attempt.response.status.code, challenge: refusal, body: attempt.body)
    }

    /// The response's 401 `DPoP` challenge with the error `error`, if it has one.
    private static func challenge(in response: HTTPResponse, error: String) -> AuthenticationChallenge? {
        guard response.status == .unauthorized else { return nil }
        return AuthenticationChallenge.challenges(in: response).first { $0.hasScheme("DPoP") && $0.error == error }
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

    /// `request` authorized with `auth`: its `Authorization` field presents the token (``authorize(_:with:)``), and
    /// for a DPoP token (``Auth/isDPoPBound``) its `DPoP` field carries a proof from the session's key, with `ath` and
    /// the resource's newest nonce.
    ///
    /// - Throws: ``TokenAuthError/Code/proofKeyUnavailable`` for a DPoP token without a ``DPoP`` to sign with,
    ///   ``TokenAuthError/Code/proofKeyUnusable`` for one without a key, and the key provider's errors.
    ///
    /// - Parameter target: The request as the server receives it, when `request` is not absolute (an OpenAPI
    ///   client's has only the operation's path): its URL is the proof's `htu`, and its origin gives the nonce.
    package func authorized(_ request: HTTPRequest, with auth: Auth, at target: HTTPRequest? = nil) async throws -> HTTPRequest {
        var request = Self.authorize(request, with: auth)
        guard auth.isDPoPBound else { return request }
        guard let key = auth.proofKey else {
            throw TokenAuthError.proofKeyUnusable("The session's access token is a DPoP token, and no key is stored with it.")
        }
        guard let dpop else { throw TokenAuthError.proofOfPossessionNotConfigured("authorized client") }
        request.headerFields[DPoP.proofField] = try await dpop.proof(
            for: target ?? request, key: key, accessToken: auth.accessToken)
        return request
    }

    /// Keeps the `DPoP-Nonce` of a response to `request`, for the next proof to its origin.
    package func noteAnswer(_ response: HTTPResponse, to request: HTTPRequest) {
        dpop?.noteNonce(in: response, to: request)
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
            ($0.hasScheme("Bearer") || $0.hasScheme("DPoP")) && $0.error == "insufficient_scope"
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
            let authorized = try await authorized(request, with: auth)
            let (response, data) = try await transport.send(authorized, body: body)
            noteAnswer(response, to: authorized)
            return Attempt(response: response, body: data, value: (response, data))
        }
    }
}
