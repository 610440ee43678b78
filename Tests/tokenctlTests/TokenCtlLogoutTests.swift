import Foundation
import KeyringTestSupport
import OAuthTestServer
import Testing
import TokenAuth
import OAuthTestSupport
import TokenAuthURLSession

extension TokenCtlNetworkTests {
    @Suite("tokenctl logout and status against a real OAuth server")
    struct TokenCtlLogoutTests {
        @Test("logout revokes the refresh token at the server (RFC 7009) and deletes the item")
        func logoutRevokesAndDeletes() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                let stored = try #require(try await fixture.store.loadCredentials())

                let result = try await tokenctl(fixture.item("logout"))
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.allOutput.isEmpty)
                #expect(fixture.server.stats.revocationRequests >= 1)
                #expect(fixture.server.stats.revokedTokens == 1)
                #expect(try await fixture.store.loadCredentials() == nil)

                // The revoked refresh token is dead at the server.
                let refresher = TokenEndpointClient(client: try #require(stored.client), transport: URLSessionHTTPTransport())
                let refused = await #expect(throws: TokenAuthError.self) {
                    try await refresher.refresh(refreshToken: try #require(stored.auth.refreshToken))
                }
                #expect(refused == .invalidGrant)
                let after = try await tokenctl(fixture.item("request", fixture.server.resourceURL.absoluteString))
                #expect(after.status == 3)
            }
        }

        @Test("logout deletes the item even when the revocation endpoint is unreachable, and says what happened: deleted, not revoked, nothing to retry")
        func logoutWithoutRevocation() async throws {
            try await NetworkFixture.with { fixture in
                let deadEndpoint = try await withServer { $0.revocationEndpoint }
                let issued = fixture.server.issueTokens(clientID: "test-client", subject: "alice")
                try await fixture.store.save(StoredCredentials(
                    auth: Auth(accessToken: issued.accessToken, refreshToken: issued.refreshToken),
                    client: OAuthClient(
                        tokenEndpoint: fixture.server.tokenEndpoint, clientID: "test-client", revocationEndpoint: deadEndpoint)))

                let result = try await tokenctl(fixture.item("logout"))
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("Deleted the tokens from the keyring, but the server did not revoke them"),
                        "\(result.stderr)")
                #expect(result.stderr.contains("the connection was refused"), "\(result.stderr)")
                #expect(result.stderr.contains("They stay valid at the server until they expire"), "\(result.stderr)")
                // The revocation error's own fix speaks of tokens kept for a retry: untrue once they are deleted.
                #expect(!result.stderr.contains("kept") && !result.stderr.contains("retried"), "\(result.stderr)")
                #expect(!result.allOutput.contains(issued.refreshToken!))
                #expect(try await fixture.store.loadCredentials() == nil)
            }
        }

        @Test("logout without a recorded revocation endpoint only deletes; with nothing stored it exits 3")
        func logoutLocalOnly() async throws {
            try await NetworkFixture.with { fixture in
                let nothing = try await tokenctl(fixture.item("logout"))
                #expect(nothing.status == 3)

                try await fixture.store.save(StoredCredentials(auth: Auth(accessToken: "local-only")))
                let result = try await tokenctl(fixture.item("logout"))
                #expect(result.status == 0, "\(result.stderr)")
                #expect(fixture.server.stats.revocationRequests == 0)
                #expect(try await fixture.store.loadCredentials() == nil)
            }
        }

        @Test("status shows expiry in local time and relative, refresh token, endpoints and the last refresh; --json too")
        func status() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                let fresh = try await tokenctl(fixture.item("status"))
                #expect(fresh.status == 0, "\(fresh.stderr)")
                #expect(fresh.stdout.contains("(expires in 59 min)") || fresh.stdout.contains("(expires in 1 h)"))
                #expect(fresh.stdout.contains("refresh token:  yes"))
                #expect(fresh.stdout.contains("token endpoint: \(fixture.server.tokenEndpoint.absoluteString)"))
                #expect(fresh.stdout.contains("revocation:     \(fixture.server.revocationEndpoint.absoluteString)"))
                #expect(fresh.stdout.contains("last refresh:   none recorded"))

                let refresh = try await tokenctl(fixture.item("refresh"))
                #expect(refresh.status == 0, "\(refresh.stderr)")
                let refreshed = try await tokenctl(fixture.item("status"))
                #expect(refreshed.stdout.contains(" s ago)"), "\(refreshed.stdout)")

                let json = try await tokenctl(fixture.item("status", "--json"))
                let object = try json.json()
                #expect(object["has_refresh_token"] as? Bool == true)
                #expect(object["refreshed_at"] is String)
                #expect(object["revocation_endpoint"] as? String == fixture.server.revocationEndpoint.absoluteString)
                #expect((object["expires_in_seconds"] as? Int).map { $0 > 3500 } == true)
                let stored = try #require(try await fixture.store.load())
                #expect(!json.allOutput.contains(stored.accessToken))
            }
        }
    }
}
