import Foundation
import KeyringTestSupport
import OAuthTestServer
import Testing
import TokenAuth

extension TokenCtlNetworkTests {
    @Suite("tokenctl login against a real OAuth server")
    struct TokenCtlLoginTests {
        @Test("password grant: one item with the tokens, the token endpoint, the client and the scope; nothing printed")
        func passwordGrant() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login(scope: "read write")
                let stored = try #require(try await fixture.store.loadCredentials())
                #expect(stored.client?.tokenEndpoint == fixture.server.tokenEndpoint)
                #expect(stored.client?.clientID == "test-client")
                #expect(stored.client?.clientSecret == nil)
                #expect(stored.client?.revocationEndpoint == fixture.server.revocationEndpoint)
                #expect(stored.auth.refreshToken != nil)
                #expect(stored.auth.scope == "read write")
                #expect(stored.auth.expiresAt.map { $0.timeIntervalSinceNow > 3000 } == true)
                #expect(stored.refreshedAt == nil)
                #expect(fixture.server.stats.passwordGrants == 1)
            }
        }

        @Test("password grant of a confidential client: client secret on line 1, password on line 2; neither is echoed")
        func confidentialPasswordGrant() async throws {
            try await NetworkFixture.with { fixture in
                let result = try await tokenctl(
                    fixture.item(
                        "login", "--token-url", fixture.server.tokenEndpoint.absoluteString, "--client-id", "vault",
                        "--client-secret-stdin", "--username", "alice", "--password-stdin"),
                    stdin: "\(NetworkFixture.clientSecret)\n\(NetworkFixture.password)\n")
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout.isEmpty)
                #expect(!result.allOutput.contains(NetworkFixture.password))
                #expect(!result.allOutput.contains(NetworkFixture.clientSecret))
                let stored = try #require(try await fixture.store.loadCredentials())
                #expect(stored.client?.clientID == "vault")
                #expect(stored.client?.clientSecret == NetworkFixture.clientSecret)
                #expect(fixture.server.stats.clientAuthentications["client_secret_basic"] == 1)
            }
        }

        @Test("client credentials grant: stored with its secret, and renewed with the same grant once expired")
        func clientCredentialsGrant() async throws {
            try await NetworkFixture.with(accessTokenLifetime: .seconds(30)) { fixture in
                let result = try await tokenctl(
                    fixture.item(
                        "login", "--token-url", fixture.server.tokenEndpoint.absoluteString, "--client-id", "vault",
                        "--client-secret-stdin", "--client-credentials", "--scope", "reports"),
                    stdin: NetworkFixture.clientSecret + "\n")
                #expect(result.status == 0, "\(result.stderr)")
                let stored = try #require(try await fixture.store.loadCredentials())
                #expect(stored.auth.refreshToken == nil)
                #expect(stored.client?.clientSecret == NetworkFixture.clientSecret)
                #expect(fixture.server.stats.clientCredentialsGrants == 1)

                // Inside the leeway (half of a 30 s life): `token` gets a new one with the client credentials grant.
                try await fixture.retimeStoredTokens(issuedAgo: 25, expiringIn: 5)
                let token = try await tokenctl(fixture.item("token"))
                #expect(token.status == 0, "\(token.stderr)")
                #expect(fixture.server.stats.clientCredentialsGrants == 2)
                #expect(try await fixture.store.load()?.accessToken == token.stdout.trimmingCharacters(in: .newlines))
            }
        }

        @Test("a refresh token with a lifetime (GitHub's refresh_token_expires_in): stored, and shown by show")
        func refreshTokenLifetime() async throws {
            try await NetworkFixture.with(refreshTokenLifetime: .seconds(15_811_200)) { fixture in
                try await fixture.login()
                let stored = try #require(try await fixture.store.load())
                let expiry = try #require(stored.refreshTokenExpiresAt)
                #expect(abs(expiry.timeIntervalSinceNow - 15_811_200) < 600)
                let show = try await tokenctl(fixture.item("show"))
                #expect(show.status == 0, "\(show.stderr)")
                #expect(show.stdout.contains("refresh token:  yes, until "), "\(show.stdout)")
                let json = try await tokenctl(fixture.item("show", "--json")).json()
                #expect(json["refresh_token_expires_at"] != nil)
                // A refresh brings a new refresh token with a new date; the item keeps it.
                #expect(try await tokenctl(fixture.item("refresh")).status == 0)
                #expect(try await fixture.store.load()?.refreshTokenExpiresAt != nil)
            }
        }

        @Test("a user's token without a refresh token, with the client's secret: sign-in required, no grant sent")
        func noRefreshTokenNoGrant() async throws {
            try await NetworkFixture.with { fixture in
                let issued = fixture.server.issueTokens(clientID: "vault", subject: "alice")
                let response = #"{"access_token":"\#(issued.accessToken)","expires_in":600,"token_type":"bearer"}"#
                let login = try await tokenctl(
                    fixture.item(
                        "login", "--token-url", fixture.server.tokenEndpoint.absoluteString, "--client-id", "vault",
                        "--client-secret-stdin", "--tokens-stdin"),
                    stdin: NetworkFixture.clientSecret + "\n" + response)
                #expect(login.status == 0, "\(login.stderr)")
                try await fixture.retimeStoredTokens(issuedAgo: 3600, expiringIn: -1)
                let before = try await fixture.store.loadCredentials()
                #expect(before?.client?.clientSecret == NetworkFixture.clientSecret)

                for command in ["refresh", "token"] {
                    let result = try await tokenctl(fixture.item(command))
                    #expect(result.status == 3, "\(command): \(result.stderr)")
                    #expect(result.stdout.isEmpty)
                }
                #expect(fixture.server.stats.tokenRequests == 0, "nothing was sent: not a client credentials grant")
                #expect(fixture.server.stats.clientCredentialsGrants == 0)
                #expect(try await fixture.store.loadCredentials() == before)
            }
        }

        @Test("--tokens-stdin stores the given token response with the client recorded")
        func tokensFromStandardInput() async throws {
            try await NetworkFixture.with { fixture in
                let issued = fixture.server.issueTokens(clientID: "test-client", subject: "alice")
                let response = #"{"access_token":"\#(issued.accessToken)","refresh_token":"\#(issued.refreshToken!)","expires_in":600,"token_type":"bearer"}"#
                let result = try await tokenctl(
                    fixture.item(
                        "login", "--token-url", fixture.server.tokenEndpoint.absoluteString, "--client-id", "test-client",
                        "--tokens-stdin"),
                    stdin: response)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(!result.allOutput.contains(issued.accessToken))
                let stored = try #require(try await fixture.store.loadCredentials())
                #expect(stored.auth.accessToken == issued.accessToken)
                #expect(stored.auth.refreshToken == issued.refreshToken)
                #expect(stored.client?.tokenEndpoint == fixture.server.tokenEndpoint)
                #expect(stored.client?.clientID == "test-client")
                #expect(fixture.server.stats.tokenRequests == 0)
            }
        }

        @Test("a wrong password exits 3 and stores nothing; usage errors exit 64")
        func failures() async throws {
            try await NetworkFixture.with { fixture in
                let tokenURL = fixture.server.tokenEndpoint.absoluteString
                let wrong = try await tokenctl(
                    fixture.item("login", "--token-url", tokenURL, "--client-id", "test-client", "--username", "alice", "--password-stdin"),
                    stdin: "not-the-password\n")
                #expect(wrong.status == 3)
                #expect(wrong.stderr.contains("invalid_grant"))
                #expect(!wrong.allOutput.contains("not-the-password"))
                #expect(try await fixture.store.loadCredentials() == nil)

                let noMode = try await tokenctl(fixture.item("login", "--token-url", tokenURL, "--client-id", "test-client"))
                #expect(noMode.status == 64)
                let twoModes = try await tokenctl(
                    fixture.item("login", "--token-url", tokenURL, "--client-id", "test-client", "--tokens-stdin", "--client-credentials"))
                #expect(twoModes.status == 64)
                let insecure = try await tokenctl(
                    fixture.item("login", "--token-url", "http://auth.example.com/token", "--client-id", "x", "--tokens-stdin"),
                    stdin: "token")
                #expect(insecure.status == 64)
                let missingPassword = try await tokenctl(
                    fixture.item("login", "--token-url", tokenURL, "--client-id", "test-client", "--username", "alice", "--password-stdin"),
                    stdin: "")
                #expect(missingPassword.status == 65)
            }
        }

        @Test("a token endpoint that redirects exits 64 naming the Location; the password is not sent there")
        func redirectingTokenEndpoint() async throws {
            try await NetworkFixture.with { fixture in
                let slashed = fixture.server.url("/token/")
                let result = try await tokenctl(
                    fixture.item(
                        "login", "--token-url", fixture.server.redirectURL(to: slashed, status: 308).absoluteString,
                        "--client-id", "test-client", "--username", "alice", "--password-stdin"),
                    stdin: NetworkFixture.password + "\n")
                #expect(result.status == 64, "\(result.stderr)")
                #expect(result.stderr.contains("redirects to \(slashed.absoluteString)"))
                #expect(result.stderr.contains("Use that URL as the token endpoint"))
                #expect(!result.allOutput.contains(NetworkFixture.password))
                #expect(fixture.server.recordedRequests.map(\.uri).allSatisfy { $0.hasPrefix("/redirect?") })
                #expect(try await fixture.store.loadCredentials() == nil)
            }
        }
    }
}
