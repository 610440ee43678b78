import Foundation
import OAuthTestServer
import OAuthTestSupport
import Testing
@testable import TokenAuth
import TokenAuthTesting
import TokenAuthURLSession

/// The token-endpoint client against a real OAuthTestServer on 127.0.0.1, over the real URLSession transport.
@Suite("Token endpoint client against the local OAuth server")
struct TokenEndpointClientTests {
    static let confidential = OAuthTestServer.Configuration(clients: [
        OAuthTestServer.RegisteredClient(id: "test-client"),
        confidentialClient,
        OAuthTestServer.RegisteredClient(id: "client:1 é", secret: "p@ss:w+rd/= é"),
    ])

    // MARK: Grants

    @Test("the password grant returns tokens that the protected resource accepts")
    func passwordGrant() async throws {
        try await withServer { server in
            let tokens = try await server.tokenClient().password(username: "alice", password: "wonderland", scope: "read")
            #expect(tokens.tokenType == "Bearer")
            #expect(tokens.refreshToken != nil)
            #expect(tokens.scope == "read")
            let resource = try await call(.get, server.resourceURL, bearer: tokens.accessToken)
            #expect(resource.status == 200)
            #expect(resource.json["token_subject"] as? String == "alice")
            #expect(server.stats.passwordGrants == 1)
        }
    }

    @Test("a wrong password is a permanent invalid_grant that does not mention the password")
    func wrongPassword() async throws {
        try await withServer { server in
            let error = await tokenError {
                try await server.tokenClient().password(username: "alice", password: "not-the-password")
            }
            #expect(error == .invalidGrant)
            #expect(error?.isTransient == false)
            #expect(error?.description.contains("not-the-password") == false)
        }
    }

    @Test("the client_credentials grant issues a token for the client itself and no refresh token")
    func clientCredentialsGrant() async throws {
        try await withServer(Self.confidential) { server in
            let tokens = try await server.tokenClient(id: "confidential", secret: "s3cret-value").clientCredentials(scope: "jobs")
            #expect(tokens.refreshToken == nil)
            #expect(tokens.scope == "jobs")
            let resource = try await call(.get, server.resourceURL, bearer: tokens.accessToken)
            #expect(resource.json["token_subject"] as? String == "confidential")
            #expect(server.stats.clientCredentialsGrants == 1)
        }
    }

    @Test("the refresh grant returns a new access token that works")
    func refreshGrant() async throws {
        try await withServer { server in
            let client = server.tokenClient()
            let first = try await client.password(username: "alice", password: "wonderland")
            let refreshed = try await client.refresh(refreshToken: try #require(first.refreshToken))
            #expect(refreshed.accessToken != first.accessToken)
            #expect(try await call(.get, server.resourceURL, bearer: refreshed.accessToken).status == 200)
            #expect(server.stats.refreshGrants == 1)
            #expect(server.stats.successfulRefreshes == 1)
        }
    }

    // MARK: Client authentication

    @Test("a public client sends only its client_id, in the body")
    func publicClient() async throws {
        try await withServer { server in
            _ = try await server.tokenClient().password(username: "alice", password: "wonderland")
            #expect(server.stats.clientAuthentications == ["none": 1])
            #expect(server.recordedRequests.last?.header("authorization") == nil)
        }
    }

    @Test("client_secret_post sends the id and secret in the body, with no Authorization header")
    func clientSecretPost() async throws {
        try await withServer(Self.confidential) { server in
            let client = server.tokenClient(id: "confidential", secret: "s3cret-value", authentication: .clientSecretPost)
            _ = try await client.clientCredentials()
            #expect(server.stats.clientAuthentications == ["client_secret_post": 1])
            #expect(server.recordedRequests.last?.header("authorization") == nil)
        }
    }

    @Test("client_secret_basic sends form-encoded credentials the server can decode, even with : and non-ASCII")
    func clientSecretBasic() async throws {
        try await withServer(Self.confidential) { server in
            let client = server.tokenClient(id: "client:1 é", secret: "p@ss:w+rd/= é", authentication: .clientSecretBasic)
            let tokens = try await client.clientCredentials()
            #expect(server.stats.clientAuthentications == ["client_secret_basic": 1])
            #expect(server.recordedRequests.last?.header("authorization")?.hasPrefix("Basic ") == true)
            let resource = try await call(.get, server.resourceURL, bearer: tokens.accessToken)
            #expect(resource.json["client_id"] as? String == "client:1 é")
        }
    }

    @Test("a wrong client secret is a permanent invalid_client whose description omits the secret")
    func wrongClientSecret() async throws {
        try await withServer(Self.confidential) { server in
            for authentication in [OAuthClient.Authentication.clientSecretBasic, .clientSecretPost] {
                let client = server.tokenClient(id: "confidential", secret: "WRONG-SECRET", authentication: authentication)
                let error = await tokenError { try await client.clientCredentials() }
                #expect(error == .invalidClient)
                #expect(error?.statusCode == 401)
                #expect(error?.isTransient == false)
                #expect(error?.description.contains("WRONG-SECRET") == false)
            }
        }
    }

    @Test("a grant the client may not use is unauthorized_client")
    func unauthorizedClient() async throws {
        let configuration = OAuthTestServer.Configuration(clients: [
            OAuthTestServer.RegisteredClient(id: "test-client", allowedGrantTypes: ["password", "refresh_token"])
        ])
        try await withServer(configuration) { server in
            let error = await tokenError { try await server.tokenClient().clientCredentials() }
            #expect(error == .unauthorizedClient)
            #expect(error?.isTransient == false)
        }
    }

    // MARK: Rotation and reuse detection

    @Test("each refresh rotates the refresh token")
    func rotation() async throws {
        try await withServer { server in
            let client = server.tokenClient()
            var refreshToken = try #require(try await client.password(username: "alice", password: "wonderland").refreshToken)
            var seen: Set<String> = [refreshToken]
            for _ in 0..<3 {
                let response = try await client.refresh(refreshToken: refreshToken)
                refreshToken = try #require(response.refreshToken)
                seen.insert(refreshToken)
            }
            #expect(seen.count == 4)
            #expect(server.stats.successfulRefreshes == 3)
            #expect(server.stats.reuseDetections == 0)
        }
    }

    @Test("reusing a rotated refresh token revokes its whole family and counts one reuse detection")
    func reuseDetection() async throws {
        try await withServer { server in
            let client = server.tokenClient()
            let original = try #require(try await client.password(username: "alice", password: "wonderland").refreshToken)
            let rotated = try await client.refresh(refreshToken: original)
            let newRefreshToken = try #require(rotated.refreshToken)
            #expect(try await call(.get, server.resourceURL, bearer: rotated.accessToken).status == 200)

            let reuse = await tokenError { try await client.refresh(refreshToken: original) }
            #expect(reuse == .invalidGrant)
            #expect(reuse?.isTransient == false)
            #expect(server.stats.reuseDetections == 1)

            let afterRevocation = try await call(.get, server.resourceURL, bearer: rotated.accessToken)
            #expect(afterRevocation.status == 401)
            #expect(afterRevocation.headers[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true)
            let familyRefresh = await tokenError { try await client.refresh(refreshToken: newRefreshToken) }
            #expect(familyRefresh == .invalidGrant)
        }
    }

    @Test("without rotation the response has no refresh token and the previous one keeps working")
    func noRotation() async throws {
        var configuration = OAuthTestServer.Configuration()
        configuration.rotateRefreshTokens = false
        try await withServer(configuration) { server in
            let client = server.tokenClient()
            let first = try await client.password(username: "alice", password: "wonderland")
            let refreshed = try await client.refresh(refreshToken: try #require(first.refreshToken))
            #expect(refreshed.refreshToken == nil)
            let auth = refreshed.auth(updating: Auth(accessToken: first.accessToken, refreshToken: first.refreshToken))
            #expect(auth.refreshToken == first.refreshToken)
            _ = try await client.refresh(refreshToken: try #require(auth.refreshToken))
            #expect(server.stats.successfulRefreshes == 2)
        }
    }

    @Test("a refresh may narrow the scope but not widen it")
    func refreshScope() async throws {
        try await withServer { server in
            let client = server.tokenClient()
            let first = try await client.password(username: "alice", password: "wonderland", scope: "read write")
            let narrowed = try await client.refresh(refreshToken: try #require(first.refreshToken), scope: "read")
            #expect(narrowed.scope == "read")
            let error = await tokenError { try await client.refresh(refreshToken: try #require(narrowed.refreshToken), scope: "admin") }
            #expect(error == .invalidScope)
            #expect(error?.isTransient == false)
        }
    }

    // MARK: Redirects

    @Test("a token endpoint that redirects is a permanent configuration error naming the Location; the target gets nothing",
          arguments: [301, 302, 303, 307, 308])
    func redirectIsNotFollowed(status: Int) async throws {
        try await withServer(Self.confidential) { server in
            try await withServer(Self.confidential) { target in
                let client = TokenEndpointClient(client: OAuthClient(
                    tokenEndpoint: server.redirectURL(to: target.tokenEndpoint, status: status),
                    clientID: "confidential", clientSecret: "s3cret-value"), transport: URLSessionHTTPTransport())
                let error = await tokenError { try await client.password(username: "alice", password: "wonderland") }
                #expect(error?.code == .redirected)
                #expect(error?.isTransient == false)
                #expect(error?.statusCode == status)
                let description = error?.description ?? ""
                #expect(description.contains("redirects to \(target.tokenEndpoint.absoluteString) (HTTP \(status))"))
                #expect(description.contains("Use that URL as the token endpoint"))
                #expect(!description.contains("s3cret-value") && !description.contains("wonderland"))
                #expect(target.recordedRequests.isEmpty)
                #expect(server.recordedRequests.count == 1)
            }
        }
    }

    @Test("a relative Location is named as the absolute URL to configure, without its query; a RecordingTransport passes the policy on")
    func relativeRedirectIsResolved() async throws {
        try await withServer { server in
            var endpoint = URLComponents(url: server.url("/redirect"), resolvingAgainstBaseURL: false)!
            endpoint.queryItems = [URLQueryItem(name: "to", value: "/token/?code=private"), URLQueryItem(name: "status", value: "308")]
            let recorder = TokenAuthTesting.RecordingTransport(passingTo: URLSessionHTTPTransport())
            let client = TokenEndpointClient(
                client: OAuthClient(tokenEndpoint: endpoint.url!, clientID: "test-client"), transport: recorder)
            let error = await tokenError { try await client.password(username: "alice", password: "wonderland") }
            #expect(error?.code == .redirected)
            // checks the sentence's help: the URL to configure instead.
            #expect(error?.description.contains("redirects to \(server.url("/token/").absoluteString) (HTTP 308);") == true)
            #expect(error?.description.contains("private") == false)
            #expect(server.stats.tokenRequests == 0)
            #expect(recorder.exchanges.map(\.redirects) == [.refuse])
            #expect(recorder.exchanges.first?.response?.status.code == 308)
        }
    }

    // MARK: Expiry and token type

    @Test("expires_in counts from when the request was sent, by the injected clock")
    func expiryFromSendTime() async throws {
        // Every read of this clock moves it 10 minutes on: a client that read it after the response would be off.
        let clock = ManualWallClock(advancingEachReadBy: 600)
        try await withServer { server in
            let tokens = try await server.tokenClient(clock: clock.wallClock).password(username: "alice", password: "wonderland")
            #expect(tokens.expiresAt == ManualWallClock.epoch.addingTimeInterval(3600))
            #expect(clock.reads == 1)
        }
    }

    @Test("expires_in as a numeric string, or absent, is handled", arguments: OAuthTestServer.ExpiresInStyle.allCases)
    func expiresInStyles(style: OAuthTestServer.ExpiresInStyle) async throws {
        var configuration = OAuthTestServer.Configuration()
        configuration.expiresInStyle = style
        configuration.accessTokenLifetime = .seconds(90)
        let clock = ManualWallClock()
        try await withServer(configuration) { server in
            let tokens = try await server.tokenClient(clock: clock.wallClock).password(username: "alice", password: "wonderland")
            let expected: Date? = style == .omitted ? nil : ManualWallClock.epoch.addingTimeInterval(90)
            #expect(tokens.expiresAt == expected)
        }
    }

    @Test("a lower-case token_type from the server is normalised to Bearer")
    func tokenTypeFromServer() async throws {
        var configuration = OAuthTestServer.Configuration()
        configuration.tokenType = "bEaReR"
        try await withServer(configuration) { server in
            let tokens = try await server.tokenClient().password(username: "alice", password: "wonderland")
            #expect(tokens.tokenType == "Bearer")
        }
    }
}
