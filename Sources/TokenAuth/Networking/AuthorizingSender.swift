import Foundation
import HTTPTypes

/// The request logic behind every front door of ``AuthorizedClient``: authorize, send, and on a rejected token
/// refresh once and retry once.
///
/// Kept apart from the client so that the callback pipeline can hold it without holding itself.
package struct AuthorizingSender: Sendable {
    let manager: AuthManager
    let transport: any HTTPTransport
    let classifier: TokenRejectionClassifier

    /// Sends `request`, authorized with a valid token unless `requiresAuthentication` is `false`.
    func send(_ request: HTTPRequest, body: Data?, requiresAuthentication: Bool) async throws -> (HTTPResponse, Data) {
        guard requiresAuthentication else {
            return try await transport.send(request, body: body)
        }
        let auth = try await validAuth()
        return try await send(request, body: body, authorizedWith: auth)
    }

    /// A valid token bundle, with a login-required failure turned into ``AuthorizedClientError/Code/loginRequired``.
    func validAuth() async throws -> Auth {
        try await AuthorizedClientError.mappingLoginRequired { try await manager.validAuth() }
    }

    /// Sends `request` with `auth`'s token; if the server rejects that token, asks the manager to replace it
    /// (the stale-token path: no refresh if it was already replaced) and sends the request once more.
    ///
    /// `body` is `Data`, so it can always be sent again byte for byte.
    func send(_ request: HTTPRequest, body: Data?, authorizedWith auth: Auth) async throws -> (HTTPResponse, Data) {
        let (response, data) = try await transport.send(Self.authorize(request, with: auth), body: body)
        try Self.checkScope(response, body: data)
        guard classifier.isTokenRejected(response, body: data) else { return (response, data) }

        let replacement = try await AuthorizedClientError.mappingLoginRequired {
            try await manager.refresh(rejecting: auth.accessToken)
        }
        guard replacement.accessToken != auth.accessToken else {
            // The manager has nothing better: sending the same token again would be rejected again.
            throw AuthorizedClientError.unauthorized(response, body: data)
        }
        try Task.checkCancellation()
        let (retried, retriedData) = try await transport.send(Self.authorize(request, with: replacement), body: body)
        try Self.checkScope(retried, body: retriedData)
        if classifier.isTokenRejected(retried, body: retriedData) {
            throw AuthorizedClientError.unauthorized(retried, body: retriedData)
        }
        return (retried, retriedData)
    }

    /// `request` with its `Authorization` field set to present `auth`'s token, replacing any the caller set.
    package static func authorize(_ request: HTTPRequest, with auth: Auth) -> HTTPRequest {
        var request = request
        request.headerFields[.authorization] = auth.authorizationHeaderValue
        return request
    }

    /// Throws ``AuthorizedClientError/Code/insufficientScope`` for a response whose `Bearer` challenge says
    /// `insufficient_scope` (RFC 6750 §3.1): a permission error that a refresh does not fix.
    package static func checkScope(_ response: HTTPResponse, body: Data) throws {
        if isInsufficientScope(response) {
            throw AuthorizedClientError.insufficientScope(response, body: body)
        }
    }

    /// Whether `response` is an RFC 6750 `insufficient_scope` answer.
    package static func isInsufficientScope(_ response: HTTPResponse) -> Bool {
        guard response.status.kind == .clientError else { return false }
        return AuthenticationChallenge.challenges(in: response).contains {
            $0.hasScheme("Bearer") && $0.error == "insufficient_scope"
        }
    }
}
