#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
    ///   - transport: How revocation requests are sent: `URLSessionHTTPTransport` (module `TokenAuthURLSession`) or
    ///     your own.
    ///   - logger: Where each revocation is logged: the endpoint without its query and the token type hint at trace
    ///     level, then the duration and the outcome (or the error's type and code) at debug level. Never a token or
    ///     client secret.
    public init(
        client: OAuthClient,
        endpoint: URL,
        transport: any HTTPTransport,
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
        transport: any HTTPTransport,
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
        var parameters = [(name: "token", value: token)]
        if let hint { parameters.append((name: "token_type_hint", value: hint.rawValue)) }
        let post = OAuthFormPost("revocation endpoint", endpoint: endpoint, client: client, transport: transport)
        _ = try await post.send(parameters, secrets: [token])
    }
}
