import Foundation
import OAuthTestServer
import OAuthTestSupport
import Testing
@testable import TokenAuth
import TokenAuthTesting
import TokenAuthURLSession

@Suite("TokenRevocationClient (RFC 7009) against the local OAuth server")
struct TokenRevocationClientTests {
    static let configuration = OAuthTestServer.Configuration(
        clients: [.init(id: "test-client"), .init(id: "vault", secret: "vault-secret")])
    /// The real transport with the patience of a busy CI machine (the client's own default is 10 s).
    static let transport = URLSessionHTTPTransport(timeout: .seconds(60))

    @Test("revoking a refresh token ends its grant: the refresh token and its access tokens are refused afterwards")
    func revokeRefreshToken() async throws {
        try await withServer(Self.configuration) { server in
            let issued = server.issueTokens(clientID: "test-client", subject: "alice")
            let client = OAuthClient(
                tokenEndpoint: server.tokenEndpoint, clientID: "test-client", revocationEndpoint: server.revocationEndpoint)
            let revoker = try #require(TokenRevocationClient(client: client, transport: Self.transport))

            try await revoker.revoke(try #require(issued.refreshToken), hint: .refreshToken)
            #expect(server.stats.revocationRequests == 1)
            #expect(server.stats.revokedTokens == 1)
            let refused = await expectTokenAuthError(.rejected) {
                try await TokenEndpointClient(client: client, transport: URLSessionHTTPTransport()).refresh(refreshToken: issued.refreshToken!)
            }
            #expect(refused == .invalidGrant)
            // An already revoked or unknown token is still a success (RFC 7009 §2.2).
            try await revoker.revoke(issued.accessToken, hint: .accessToken)
            try await revoker.revoke("never-issued")
            #expect(server.stats.revokedTokens == 1)
            #expect(server.stats.revocationRequests == 3)
        }
    }

    @Test("a revocation endpoint that redirects is a permanent error naming the Location; the target gets nothing")
    func redirectIsNotFollowed() async throws {
        try await withServer(Self.configuration) { server in
            try await withServer(Self.configuration) { target in
                let issued = target.issueTokens(clientID: "vault", subject: "vault")
                let client = OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: "vault", clientSecret: "vault-secret")
                let revoker = TokenRevocationClient(
                    client: client, endpoint: server.redirectURL(to: target.revocationEndpoint, status: 308),
                    transport: Self.transport)
                let error = await expectTokenAuthError(.redirected) {
                    try await revoker.revoke(issued.accessToken)
                }
                #expect(error?.isTransient == false)
                #expect(error?.statusCode == 308)
                let description = error.map { "\($0)" } ?? ""
                #expect(description.contains("redirects to \(target.revocationEndpoint.absoluteString) (HTTP 308)"))
                #expect(!description.contains(issued.accessToken) && !description.contains("vault-secret"))
                #expect(target.recordedRequests.isEmpty)
                #expect(target.stats.revokedTokens == 0)
            }
        }
    }

    @Test("a confidential client authenticates with its secret; a wrong one is a permanent rejection")
    func clientAuthentication() async throws {
        try await withServer(Self.configuration) { server in
            let issued = server.issueTokens(clientID: "vault", subject: "vault")
            let good = OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: "vault", clientSecret: "vault-secret")
            let bad = OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: "vault", clientSecret: "wrong-secret")

            let error = await expectTokenAuthError(.rejected) {
                try await TokenRevocationClient(client: bad, endpoint: server.revocationEndpoint, transport: Self.transport).revoke(issued.accessToken)
            }
            #expect(error?.oauthErrorCode == "invalid_client")
            #expect(error?.isTransient == false)
            #expect(error.map { "\($0)".contains("wrong-secret") } == false)
            try await TokenRevocationClient(client: good, endpoint: server.revocationEndpoint, transport: Self.transport).revoke(issued.accessToken)
            #expect(server.stats.revokedTokens == 1)
        }
    }

    @Test("another client's token is refused with unauthorized_client and stays valid")
    func wrongClient() async throws {
        try await withServer(Self.configuration) { server in
            let issued = server.issueTokens(clientID: "vault", subject: "vault")
            let other = OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: "test-client")
            let error = await expectTokenAuthError(.rejected) {
                try await TokenRevocationClient(client: other, endpoint: server.revocationEndpoint, transport: Self.transport).revoke(issued.refreshToken ?? issued.accessToken)
            }
            #expect(error?.oauthErrorCode == "unauthorized_client")
            #expect(server.stats.revokedTokens == 0)
        }
    }

    @Test("an unreachable endpoint is transient; plain http to a non-loopback host is refused before sending")
    func transientAndInsecure() async throws {
        let endpoint = try await withServer(Self.configuration) { $0.revocationEndpoint }  // nothing listens there
        let client = OAuthClient(tokenEndpoint: endpoint, clientID: "test-client")
        let unreachable = await expectTokenAuthError(.networkFailure) {
            try await TokenRevocationClient(client: client, endpoint: endpoint, transport: Self.transport).revoke("t")
        }
        #expect(unreachable?.isTransient == true)

        let transport = CannedTransport(status: .ok, json: "{}")
        await expectTokenAuthError(.insecureEndpoint) {
            try await TokenRevocationClient(
                client: client, endpoint: URL(string: "http://auth.example.com/revoke")!, transport: transport
            ).revoke("t")
        }
        #expect(transport.sendCount == 0)
    }

    @Test("a 503 is transient")
    func serviceUnavailable() async throws {
        let transport = CannedTransport(status: .serviceUnavailable, json: "{}")
        let client = OAuthClient(tokenEndpoint: URL(string: "https://auth.example.com/token")!, clientID: "app")
        let error = await expectTokenAuthError(.serverError) {
            try await TokenRevocationClient(client: client, endpoint: URL(string: "https://auth.example.com/revoke")!, transport: transport)
                .revoke("t", hint: .refreshToken)
        }
        #expect(error?.statusCode == 503)
        #expect(transport.lastBody == "token=t&token_type_hint=refresh_token&client_id=app")
    }
}
