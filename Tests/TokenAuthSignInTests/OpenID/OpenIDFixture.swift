import Foundation
import OAuthTestServer
import OAuthTestSupport
import TokenAuth
import TokenAuthURLSession
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
    static let transport = URLSessionHTTPTransport(maximumResponseBodySize: IDTokenVerifier.maximumDocumentSize, timeout: .seconds(60))

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
        return try await TokenEndpointClient(client: client, transport: URLSessionHTTPTransport(), wallClock: clock.wallClock)
            .password(username: "alice", password: "wonderland", scope: scope)
    }
}

/// Runs `body` with a fixture on a new server, and awaits the server's shutdown afterwards, also when `body` throws.
func withOpenID<T>(_ body: (OpenIDFixture) async throws -> T) async throws -> T {
    let clock = ManualWallClock()
    return try await withServer(OAuthTestServer.Configuration(clock: clock.wallClock)) { server in
        let verifier = IDTokenVerifier(
            issuer: server.issuer, clientID: OpenIDFixture.clientID, jwksURI: server.jwksURI,
            transport: OpenIDFixture.transport, wallClock: clock.wallClock)
        return try await body(OpenIDFixture(server: server, clock: clock, verifier: verifier))
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
