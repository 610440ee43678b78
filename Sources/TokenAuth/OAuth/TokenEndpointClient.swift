#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

import Logging

/// Requests tokens from an authorization server's token endpoint (RFC 6749 §3.2).
///
/// Supports the `refresh_token`, `client_credentials` and `password` grants, and client authentication with
/// none (a public client: `client_id` in the body), `client_secret_post` and `client_secret_basic`, as the
/// ``OAuthClient`` says. Every method either returns a ``TokenResponse`` or throws a ``TokenAuthError`` that
/// says whether the failure is permanent (sign in again) or transient (keep the tokens, retry later) — or
/// `CancellationError` when the calling task was cancelled.
///
/// The client refuses to send credentials to a token endpoint that is neither `https` nor on a loopback host,
/// before anything goes on the wire, and never follows a redirect: a 3xx answer is
/// ``TokenAuthError/Code/redirected``, naming the `Location`. It reads the time only through the injected
/// ``WallClock``.
public struct TokenEndpointClient: Sendable {
    /// The client identity and token endpoint.
    public let client: OAuthClient
    /// How requests are sent: also what a sign-in fetches the issuer's keys with.
    package let transport: any HTTPTransport
    /// Now, for `expires_in`: also what a sign-in checks the `id_token`'s times with.
    package let wallClock: WallClock
    /// Proof of possession (DPoP, RFC 9449) for bound sessions, or `nil` when this client sends bearer requests only.
    public let dpop: DPoP?
    private let logger: Logger

    /// Creates a token-endpoint client.
    ///
    /// - Parameters:
    ///   - client: The token endpoint and how to authenticate to it.
    ///   - transport: How requests are sent: `URLSessionHTTPTransport` (module `TokenAuthURLSession`) or your own.
    ///     Whatever the transport, answers larger than ``TokenResponse/maximumSize`` bytes are rejected.
    ///   - wallClock: The wall clock, read when a request is sent (for `expires_in`) and when a `Retry-After` date
    ///     arrives.
    ///   - logger: Where each token request is logged: the grant type, the endpoint without its query and the client
    ///     authentication method at trace level, then the duration and the outcome (or the error's type and code)
    ///     at debug level. Never a token, password or client secret.
    ///   - dpop: What signs the proofs of requests for tokens bound to a key (``Auth/proofKey``); give the
    ///     ``AuthorizedClient`` the same value. `nil` refuses such requests with ``TokenAuthError/Code/proofKeyUnavailable``.
    public init(
        client: OAuthClient,
        transport: any HTTPTransport,
        wallClock: @escaping WallClock = systemWallClock,
        logger: Logger = Logger(label: "TokenAuth.TokenEndpointClient"),
        dpop: DPoP? = nil
    ) {
        self.logger = logger
        self.dpop = dpop
        self.client = client
        self.transport = transport
        self.wallClock = wallClock
    }

    /// Exchanges a refresh token for new tokens (RFC 6749 §6).
    ///
    /// With rotation the response carries a new refresh token and the presented one is spent; without, it carries
    /// none and the presented one stays valid — use ``TokenResponse/auth(updating:)`` to keep it.
    ///
    /// - Parameters:
    ///   - refreshToken: The refresh token.
    ///   - scope: A narrower scope to ask for, or `nil` for the one originally granted.
    /// - Throws: ``TokenAuthError`` (``TokenAuthError/invalidGrant`` when the refresh token is no longer
    ///   valid — also when the server answers HTTP 400 without an OAuth error body, as some OpenID providers answer a
    ///   dead refresh token), or `CancellationError`.
    public func refresh(refreshToken: String, scope: String? = nil) async throws -> TokenResponse {
        try await refresh(refreshToken: refreshToken, scope: scope, proofKey: nil)
    }

    /// Exchanges a refresh token bound to `proofKey` (DPoP, RFC 9449 §5) for new tokens, with a proof from that key;
    /// without a key, as ``refresh(refreshToken:scope:)``.
    ///
    /// A server that asks for a nonce (`use_dpop_nonce`) is asked once more with it; a refused proof
    /// (`invalid_dpop_proof`) is ``TokenAuthError/Code/proofRefused``, and the refresh token was not spent.
    ///
    /// - Throws: What ``refresh(refreshToken:scope:)`` throws, and ``TokenAuthError/Code/proofRefused`` or the
    ///   key provider's error.
    public func refresh(refreshToken: String, scope: String?, proofKey: ProofKey?) async throws -> TokenResponse {
        var parameters = [(name: "grant_type", value: "refresh_token"), (name: "refresh_token", value: refreshToken)]
        if let scope { parameters.append((name: "scope", value: scope)) }
        do {
            return try await requestToken(parameters, secrets: [refreshToken], proofKey: proofKey)
        } catch let error as TokenAuthError where error.code == .malformedResponse && error.statusCode == 400 {
            // RFC 6749 §5.2 names 400 for every refusal but a client's failed authentication (401); a refresh grant the
            // server refuses without saying why is, in practice, a refresh token it no longer accepts. Taken for a
            // transient failure, it would be sent again on every call.
            // The explanation is this client's, in the reason: the server said nothing, and nothing is quoted as its.
            throw TokenAuthError(
                .rejected,
                "The token endpoint refused the refresh with HTTP 400 and no OAuth error, as servers answer a refresh "
                    + "token they no longer accept; it is taken for invalid_grant.",
                fix: "The refresh token is invalid, expired or revoked: sign in again.",
                oauthError: OAuthErrorResponse(error: "invalid_grant"), statusCode: 400)
        }
    }

    /// Obtains a token for the client itself (RFC 6749 §4.4).
    ///
    /// - Parameter scope: The scope to ask for, or `nil` for the server's default.
    /// - Throws: ``TokenAuthError``, or `CancellationError`.
    public func clientCredentials(scope: String? = nil) async throws -> TokenResponse {
        try await clientCredentials(scope: scope, proofKey: nil)
    }

    /// Obtains a token for the client itself (RFC 6749 §4.4), bound to `proofKey` (DPoP, RFC 9449 §5) when one is
    /// given.
    ///
    /// - Throws: ``TokenAuthError`` (``TokenAuthError/Code/proofRefused`` for a refused proof), the key provider's
    ///   error, or `CancellationError`.
    public func clientCredentials(scope: String?, proofKey: ProofKey?) async throws -> TokenResponse {
        var parameters = [(name: "grant_type", value: "client_credentials")]
        if let scope { parameters.append((name: "scope", value: scope)) }
        return try await requestToken(parameters, secrets: [], proofKey: proofKey)
    }

    /// Obtains tokens with a resource owner's username and password (RFC 6749 §4.3), for scripts and tests.
    ///
    /// - Parameters:
    ///   - username: The resource owner's username.
    ///   - password: The resource owner's password. Never appears in an error.
    ///   - scope: The scope to ask for, or `nil` for the server's default.
    ///   - proofKey: The key to bind the tokens to, with a DPoP proof (RFC 9449 §5); `nil` for bearer tokens.
    /// - Throws: ``TokenAuthError`` (``TokenAuthError/invalidGrant`` for wrong credentials), or
    ///   `CancellationError`.
    public func password(
        username: String, password: String, scope: String? = nil, proofKey: ProofKey? = nil
    ) async throws -> TokenResponse {
        var parameters = [
            (name: "grant_type", value: "password"), (name: "username", value: username),
            (name: "password", value: password),
        ]
        if let scope { parameters.append((name: "scope", value: scope)) }
        return try await requestToken(parameters, secrets: [password], proofKey: proofKey)
    }

    /// Sends one token request with the grant's parameters plus client authentication, and interprets the answer.
    ///
    /// - Parameters:
    ///   - secrets: Values of the grant that must never appear in an error (the client secret is added).
    ///   - proofKey: The key to bind the tokens to, with a DPoP proof, or `nil` for bearer tokens.
    package func requestToken(
        _ grant: [(name: String, value: String)], secrets: [String], proofKey: ProofKey? = nil
    ) async throws -> TokenResponse {
        let metadata: Logger.Metadata = [
            "grant_type": "\(grant.first { $0.name == "grant_type" }?.value ?? "?")",
            "endpoint": "\(LogRedaction.url(client.tokenEndpoint))", "client_auth": "\(client.authentication.rawValue)",
            "dpop": "\(proofKey != nil)",
        ]
        let outcome = { (tokens: TokenResponse) -> Logger.Metadata in ["refresh_token_issued": "\(tokens.refreshToken != nil)"] }
        return try await logger.timed("token request", metadata, outcome: outcome) {
            if let proofKey { return try await sendProvingPossession(grant, secrets: secrets, key: proofKey) }
            return try await sendTokenRequest(grant, secrets: secrets)
        }
    }

    /// Sends one token request and reads its answer; `proof` and `answered` as ``OAuthFormPost/send(_:secrets:wallClock:proof:answered:)``.
    func sendTokenRequest(
        _ grant: [(name: String, value: String)], secrets: [String],
        proof: ((HTTPRequest) async throws -> String)? = nil, answered: ((HTTPResponse, HTTPRequest) -> Void)? = nil
    ) async throws -> TokenResponse {
        let post = OAuthFormPost("token endpoint", endpoint: client.tokenEndpoint, client: client, transport: transport)
        let sentAt = wallClock()
        let (status, body) = try await post.send(grant, secrets: secrets, wallClock: wallClock, proof: proof, answered: answered)
        return try TokenResponse.parse(
            data: body, sentAt: sentAt, statusCode: status, secrets: secrets + [client.clientSecret].compactMap { $0 })
    }

    /// Refuses endpoints that would expose credentials: anything but `https`, except `http` to a loopback host.
    package static func checkTransportSecurity(of endpoint: URL, named name: String = "token endpoint") throws(TokenAuthError) {
        let scheme = endpoint.scheme?.lowercased() ?? ""
        let host = endpoint.host ?? ""
        switch scheme {
        case "https" where !host.isEmpty:
            return
        case "http" where endpoint.hasLoopbackHost:
            return
        default:
            throw .insecureEndpoint(name, scheme: scheme.isEmpty ? "?" : scheme, host: host.isEmpty ? "?" : host)
        }
    }
}
