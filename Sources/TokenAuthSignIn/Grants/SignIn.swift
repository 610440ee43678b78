import Foundation
import Logging
import TokenAuth

/// Signs in at a token endpoint with a grant that needs no browser, and returns what to store: the tokens and
/// the client that can refresh them.
///
/// ```swift
/// let signIn = SignIn(client: OAuthClient(tokenEndpoint: tokenURL, clientID: "cli"), transport: transport)
/// let credentials = try await signIn.perform(.password(username: "ada", password: password), scope: "read")
/// try await manager.signIn(credentials.auth)
/// ```
///
/// The returned `StoredCredentials` record the client (token endpoint, id, secret, revocation endpoint), so the
/// stored item alone is enough to refresh and to revoke later.
public struct SignIn: Sendable {
    /// A grant that signs in without user interaction.
    public enum Grant: Sendable {
        /// The resource owner password grant (RFC 6749 §4.3), for scripts and tests.
        case password(username: String, password: String)
        /// The client credentials grant (RFC 6749 §4.4): the client acts on its own behalf.
        case clientCredentials
    }

    /// The client that signs in, and whose identity is stored with the tokens.
    public var client: OAuthClient { endpoint.client }
    private let endpoint: TokenEndpointClient

    /// Creates a sign-in for `client`.
    ///
    /// - Parameters:
    ///   - client: The token endpoint and client identity.
    ///   - transport: How the token request is sent.
    ///   - wallClock: The wall clock, read for the tokens' expiry.
    ///   - logger: Where the token request is logged, as by `TokenEndpointClient`; never a password, token or
    ///     client secret.
    ///   - dpop: Binds the tokens to a key made by its provider for this sign-in (DPoP, RFC 9449), proved on the token
    ///     request; `nil` (the default) for bearer tokens.
    public init(
        client: OAuthClient,
        transport: any HTTPTransport,
        wallClock: @escaping WallClock = systemWallClock,
        logger: Logger = Logger(label: "TokenAuth.TokenEndpointClient"),
        dpop: DPoP? = nil
    ) {
        endpoint = TokenEndpointClient(
            client: client, transport: transport, wallClock: wallClock, logger: logger, dpop: dpop)
    }

    /// Performs `grant` and returns the tokens with the client recorded.
    ///
    /// With `openid` in `scope`, the response's `id_token` is validated with the client's issuer and key set
    /// (`OAuthClient.issuer`, `OAuthClient.jwksURI`) and becomes `Auth.identity`. With a `DPoP`, a new key is made
    /// first, the request carries its proof, and the credentials keep the key (`Auth.proofKey`) for every refresh.
    /// - Parameters:
    ///   - grant: The grant to perform.
    ///   - scope: The scope to ask for, or `nil` for the server's default.
    /// - Throws: `TokenAuthError` (`TokenAuthError.invalidGrant` for a wrong password), ``SignInError``,
    ///   or `CancellationError`.
    public func perform(_ grant: Grant, scope: String? = nil) async throws -> StoredCredentials {
        let proofKey = try await endpoint.dpop?.keys.makeKey()
        let response: TokenResponse
        switch grant {
        case .password(let username, let password):
            response = try await endpoint.password(
                username: username, password: password, scope: scope, proofKey: proofKey)
        case .clientCredentials:
            response = try await endpoint.clientCredentials(scope: scope, proofKey: proofKey)
        }
        var credentials = try await endpoint.credentials(from: response, scope: scope, nonce: nil, proofKey: proofKey)
        // Recorded, so that a store refreshes it with the same grant, and never a user's token with it.
        if case .clientCredentials = grant { credentials.client?.usesClientCredentials = true }
        return credentials
    }

    /// Tokens obtained elsewhere (a token response or the stored format), recorded with this sign-in's client.
    ///
    /// A client secret in `imported` is kept only when it belongs to the same client id and this client has none.
    public func adopting(_ imported: StoredCredentials, scope: String? = nil) -> StoredCredentials {
        var credentials = imported
        var client = self.client
        if client.clientSecret == nil, let previous = imported.client, previous.clientID == client.clientID,
            let secret = previous.clientSecret
        {
            client = OAuthClient(
                tokenEndpoint: client.tokenEndpoint, clientID: client.clientID, clientSecret: secret,
                authentication: previous.authentication,
                revocationEndpoint: client.revocationEndpoint ?? previous.revocationEndpoint,
                issuer: client.issuer, jwksURI: client.jwksURI, userinfoEndpoint: client.userinfoEndpoint,
                usesClientCredentials: previous.usesClientCredentials)
        }
        credentials.client = client
        credentials.auth.scope = credentials.auth.scope ?? scope
        credentials.refreshedAt = nil
        return credentials
    }
}
