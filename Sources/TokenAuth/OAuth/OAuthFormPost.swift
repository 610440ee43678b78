#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// One form POST to an OAuth endpoint — the token endpoint, the revocation endpoint, sign-in's device authorization
/// endpoint — as all of them need it: an insecure endpoint is refused before anything is sent, the client's
/// authentication is added, a redirect is never followed (the body carries credentials), and every failure is a
/// ``TokenAuthError`` that names the endpoint, with the server's OAuth error answer when it sent one.
package struct OAuthFormPost: Sendable {
    /// The endpoint's name in errors, such as "token endpoint".
    package let name: String
    package let endpoint: URL
    package let client: OAuthClient
    package let transport: any HTTPTransport

    package init(_ name: String, endpoint: URL, client: OAuthClient, transport: any HTTPTransport) {
        self.name = name
        self.endpoint = endpoint
        self.client = client
        self.transport = transport
    }

    /// Sends `parameters` with the client's authentication, and returns a 2xx answer's status and body.
    ///
    /// - Parameters:
    ///   - secrets: values of `parameters` never to appear in an error (the client secret is added).
    ///   - wallClock: reads a `Retry-After` date against it; without it, `Retry-After` is not read.
    /// - Throws: ``TokenAuthError`` (or `CancellationError`).
    ///   - proof: makes the request's DPoP proof (RFC 9449 §5), or `nil` for none.
    ///   - answered: sees every answer's head first, for its `DPoP-Nonce`.
    package func send(
        _ parameters: [(name: String, value: String)], secrets: [String], wallClock: WallClock? = nil,
        proof: ((HTTPRequest) async throws -> String)? = nil, answered: ((HTTPResponse, HTTPRequest) -> Void)? = nil
    ) async throws -> (status: Int, body: Data) {
        try TokenEndpointClient.checkTransportSecurity(of: endpoint, named: name)
        guard let authentication = client.formAuthentication else {
            throw TokenAuthError.invalidClientConfiguration("\(client.authentication.rawValue) needs a client secret")
        }
        var headerFields: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .accept: "application/json"]
        headerFields[.authorization] = authentication.authorization
        let secrets = secrets + [client.clientSecret].compactMap { $0 }

        var request = HTTPRequest(method: .post, url: endpoint, headerFields: headerFields)
        if let proof { request.headerFields[DPoP.proofField] = try await proof(request) }

        let response: HTTPResponse
        let body: Data
        do {
            (response, body) = try await transport.send(
                request, body: FormEncoding.body(parameters + authentication.parameters), redirects: .refuse)
        } catch let error as CancellationError {
            throw error
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw TokenAuthError.unreachable(name, host: endpoint.host ?? "?", because: error)
        }
        answered?(response, request)
        let status = response.status.code
        switch response.status.kind {
        case .successful:
            return (status, body)
        case .redirection:
            throw TokenAuthError.redirected(
                name, to: response.redirectLocation(from: endpoint, secrets: secrets), statusCode: status)
        default:
            // 5xx and 429 are transient, with an error body or without (RFC 7009 §2.2.1 names 503 "try later").
            let retryAfter = wallClock.flatMap { RetryAfter.parse(response.headerFields[.retryAfter], now: $0()) }
            if body.count <= TokenResponse.maximumSize, let answer = OAuthErrorResponse.parse(body, secrets: secrets) {
                throw TokenAuthError.refused(answer, by: name, statusCode: status, retryAfter: retryAfter)
            }
            throw TokenAuthError.unexpectedStatus(status, from: name, retryAfter: retryAfter)
        }
    }
}
