import Foundation
import HTTPTypes
import Logging

/// Revokes tokens at an authorization server's revocation endpoint (RFC 7009).
///
/// Client authentication is the same as at the token endpoint (``OAuthClient/authentication``). Revoking a
/// refresh token also ends the access tokens of its grant at servers that support it (RFC 7009 §2.1); an unknown
/// or already revoked token is a success (§2.2). Like ``TokenEndpointClient``, it refuses an endpoint that is
/// neither `https` nor on a loopback host before anything is sent, and never follows a redirect
/// (``TokenAuthError/Code/redirected``).
public struct TokenRevocationClient: Sendable {
    /// Which kind of token is being revoked (`token_type_hint`, RFC 7009 §2.1).
    public enum TokenTypeHint: String, Sendable {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
    }

    /// The client identity that revokes.
    public let client: OAuthClient
    /// The revocation endpoint.
    public let endpoint: URL
    private let transport: any HTTPTransport
    private let logger: Logger

    /// Creates a revocation client for `endpoint`.
    ///
    /// - Parameters:
    ///   - client: The client identity that revokes.
    ///   - endpoint: The revocation endpoint.
    ///   - transport: How revocation requests are sent.
    ///   - logger: Where each revocation is logged: the endpoint without its query and the token type hint at trace
    ///     level, then the duration and the outcome (or the error's type and code) at debug level. Never a token or
    ///     client secret.
    public init(
        client: OAuthClient,
        endpoint: URL,
        transport: any HTTPTransport = URLSessionTransport(maximumResponseBodySize: 64 * 1024, timeout: .seconds(10)),
        logger: Logger = Logger(label: "TokenAuth.TokenRevocationClient")
    ) {
        self.client = client
        self.endpoint = endpoint
        self.transport = transport
        self.logger = logger
    }

    /// Creates a revocation client for the client's recorded ``OAuthClient/revocationEndpoint``, or `nil` when it
    /// records none. `logger` is as for ``init(client:endpoint:transport:logger:)``.
    public init?(
        client: OAuthClient,
        transport: any HTTPTransport = URLSessionTransport(maximumResponseBodySize: 64 * 1024, timeout: .seconds(10)),
        logger: Logger = Logger(label: "TokenAuth.TokenRevocationClient")
    ) {
        guard let endpoint = client.revocationEndpoint else { return nil }
        self.init(client: client, endpoint: endpoint, transport: transport, logger: logger)
    }

    /// Revokes `token`.
    /// - Throws: ``TokenAuthError``, or `CancellationError`.
    public func revoke(_ token: String, hint: TokenTypeHint? = nil) async throws {
        let metadata: Logger.Metadata = ["endpoint": "\(LogRedaction.url(endpoint))", "hint": "\(hint?.rawValue ?? "none")"]
        try await logger.timed("token revocation", metadata) { try await send(token, hint: hint) }
    }

    private func send(_ token: String, hint: TokenTypeHint?) async throws {
        try TokenEndpointClient.checkTransportSecurity(of: endpoint, named: "revocation endpoint")
        guard let authentication = client.formAuthentication else {
            throw TokenAuthError.invalidClientConfiguration("\(client.authentication.rawValue) needs a client secret")
        }
        var parameters = [(name: "token", value: token)]
        if let hint { parameters.append((name: "token_type_hint", value: hint.rawValue)) }
        parameters += authentication.parameters
        var headerFields: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .accept: "application/json"]
        headerFields[.authorization] = authentication.authorization
        let secrets = [token] + [client.clientSecret].compactMap { $0 }

        let response: HTTPResponse
        let body: Data
        do {
            (response, body) = try await transport.send(
                HTTPRequest(method: .post, url: endpoint, headerFields: headerFields), body: FormEncoding.body(parameters),
                redirects: .refuse)
        } catch let error as CancellationError {
            throw error
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw TokenAuthError.unreachable("revocation endpoint", host: endpoint.host ?? "?", because: error)
        }
        let status = response.status.code
        if response.status.kind == .successful { return }
        if response.status.kind == .redirection {
            // Not followed: the request carries the token and the client's credentials in its body.
            throw TokenAuthError.redirected(
                "revocation endpoint", to: response.redirectLocation(from: endpoint, secrets: secrets), statusCode: status)
        }
        // 503 is RFC 7009's "try later" (§2.2.1); 5xx and 429 are transient anywhere, with an error body or without.
        if let answer = OAuthErrorResponse.parse(body, secrets: secrets) {
            throw TokenAuthError.refused(answer, by: "revocation endpoint", statusCode: status, retryAfter: nil)
        }
        throw TokenAuthError.unexpectedStatus(status, from: "revocation endpoint", retryAfter: nil)
    }
}
