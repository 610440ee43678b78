import Foundation
import OAuthTestServer
import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn

/// A real OAuth server with OpenID Connect on loopback, sharing one manual wall clock with the verifier, and a
/// verifier for its issuer and the client `test-client`.
struct OpenIDFixture: Sendable {
    static let clientID = "test-client"

    let server: OAuthTestServer
    let clock: ManualWallClock
    let verifier: IDTokenVerifier

    /// The real transport with the patience of a busy CI machine.
    static let transport = URLSessionTransport(maximumResponseBodySize: IDTokenVerifier.maximumDocumentSize, timeout: .seconds(60))

    static func start() async throws -> OpenIDFixture {
        let clock = ManualWallClock()
        let server = try await OAuthTestServer.start(OAuthTestServer.Configuration(clock: clock.wallClock))
        let verifier = IDTokenVerifier(
            issuer: server.issuer, clientID: clientID, jwksURI: server.jwksURI, transport: transport,
            wallClock: clock.wallClock)
        return OpenIDFixture(server: server, clock: clock, verifier: verifier)
    }

    /// A verifier like ``verifier`` with other settings, and its own key cache.
    func verifier(jwksURI: URL? = nil, clientID: String = OpenIDFixture.clientID) -> IDTokenVerifier {
        IDTokenVerifier(
            issuer: server.issuer, clientID: clientID, jwksURI: jwksURI ?? server.jwksURI, transport: Self.transport,
            wallClock: clock.wallClock)
    }

    /// The claims of a correct token for alice now.
    func claims(nonce: String? = nil) -> OAuthTestServer.MintedIDTokenClaims {
        server.idTokenClaims(user: "alice", clientID: Self.clientID, nonce: nonce)
    }

    /// A token response from the server's password grant for alice with `scope`.
    func passwordGrant(scope: String = "openid read") async throws -> TokenResponse {
        let client = OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: Self.clientID)
        return try await TokenEndpointClient(client: client, wallClock: clock.wallClock)
            .password(username: "alice", password: "wonderland", scope: scope)
    }
}

/// Runs `body` with a started fixture, shutting the server down afterwards.
func withOpenID<T>(_ body: (OpenIDFixture) async throws -> T) async throws -> T {
    let fixture = try await OpenIDFixture.start()
    do {
        let result = try await body(fixture)
        await fixture.server.shutdown()
        return result
    } catch {
        await fixture.server.shutdown()
        throw error
    }
}

/// The `SignInError` that `body` throws, or `nil` when it throws nothing (or something else).
func idTokenError(_ body: () async throws -> Void) async -> SignInError? {
    do {
        try await body()
        return nil
    } catch let error as SignInError {
        return error
    } catch {
        return nil
    }
}
