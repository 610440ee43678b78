import Foundation
import KeyringTestSupport
import OAuthTestServer
import Testing
import TokenAuth

extension TokenCtlNetworkTests {
    @Suite("tokenctl request against a real OAuth server")
    struct TokenCtlRequestTests {
        @Test("prints the body of a 2xx response and nothing else; exit 0")
        func happyPath() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                let result = try await tokenctl(fixture.item("request", fixture.server.url("/resource/me").absoluteString))
                #expect(result.status == 0, "\(result.stderr)")
                let body = try result.json()
                #expect(body["path"] as? String == "/resource/me")
                #expect(body["token_subject"] as? String == "alice")
                #expect(result.stderr.isEmpty)
                #expect(fixture.server.stats.refreshGrants == 0)
            }
        }

        @Test("-i prints the status line and header fields, an empty line, then the body")
        func includeHeaders() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                let result = try await tokenctl(fixture.item("request", "-i", fixture.server.resourceURL.absoluteString))
                #expect(result.status == 0, "\(result.stderr)")
                let parts = result.stdout.components(separatedBy: "\n\n")
                #expect(parts.count == 2)
                let head = parts[0].split(separator: "\n")
                #expect(head.first?.hasPrefix("HTTP/1.1 200") == true)
                #expect(head.contains { $0.lowercased().hasPrefix("content-type: application/json") })
                #expect(parts.last?.hasPrefix("{") == true)
            }
        }

        @Test("POST with -H and --data-stdin: the body and method arrive as sent")
        func postBody() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                let payload = #"{"name":"Ada","note":"ünïcödé"}"#
                let result = try await tokenctl(
                    fixture.item("request", "-X", "PUT", "-H", "Content-Type: application/json", "--data-stdin",
                                 fixture.server.url("/resource/items/1").absoluteString),
                    stdin: payload)
                #expect(result.status == 0, "\(result.stderr)")
                let echo = try result.json()
                #expect(echo["method"] as? String == "PUT")
                #expect(echo["body"] as? String == payload)
                let recorded = try #require(fixture.server.recordedRequests.last)
                #expect(recorded.headers["content-type"] == "application/json")
            }
        }

        @Test("a non-2xx status exits 6 and still prints the body")
        func nonSuccessStatus() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                let notFound = try await tokenctl(fixture.item("request", fixture.server.url("/missing").absoluteString))
                #expect(notFound.status == 6)
                #expect(try notFound.json()["error"] as? String == "not_found")

                let forbidden = try await tokenctl(fixture.item("request", "-i", fixture.server.adminResourceURL.absoluteString))
                #expect(forbidden.status == 6)
                #expect(forbidden.stdout.hasPrefix("HTTP/1.1 403"))
                #expect(forbidden.stdout.contains("insufficient_scope"))
                #expect(fixture.server.stats.refreshGrants == 0)
            }
        }

        @Test("a 401 after server-side revocation: one refresh, one retry, exit 0; the new tokens are stored")
        func refreshAndRetryOn401() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                let before = try #require(try await fixture.store.loadCredentials())
                #expect(fixture.server.revokeAllAccessTokens() == 1)

                let result = try await tokenctl(fixture.item("request", fixture.server.resourceURL.absoluteString))
                #expect(result.status == 0, "\(result.stderr)")
                #expect(fixture.server.stats.refreshGrants == 1)
                #expect(fixture.server.stats.resourceRequests == 2)
                #expect(fixture.server.stats.responses(withStatus: 401) == 1)
                let after = try #require(try await fixture.store.loadCredentials())
                #expect(after.auth.accessToken != before.auth.accessToken)
                #expect(after.auth.refreshToken != before.auth.refreshToken)
                #expect(after.refreshedAt != nil)
            }
        }

        @Test("exit 3 when nothing is stored or the refresh token is rejected; 5 when the token endpoint is down")
        func failureExitCodes() async throws {
            try await NetworkFixture.with(accessTokenLifetime: .seconds(30)) { fixture in
                let url = fixture.server.resourceURL.absoluteString
                let nothing = try await tokenctl(fixture.item("request", url))
                #expect(nothing.status == 3)
                #expect(nothing.stdout.isEmpty)

                // Tokens inside the refresh leeway (half of a 60 s life), not expired: every request refreshes first.
                try await fixture.login()
                try await fixture.retimeStoredTokens(issuedAgo: 40, expiringIn: 20)
                fixture.server.updateFaults { $0.unavailable = 1 }
                let down = try await tokenctl(fixture.item("request", url))
                #expect(down.status == 0, "a token that has not expired yet is still served: \(down.stderr)")

                fixture.server.updateFaults { $0.invalidGrantRefreshes = 1 }
                fixture.server.revokeAllAccessTokens()
                let rejected = try await tokenctl(fixture.item("request", url))
                #expect(rejected.status == 3, "\(rejected.stderr)")
                #expect(rejected.stderr.contains("invalid_grant"))

                let issued = fixture.server.issueTokens(clientID: "test-client", subject: "alice")
                let client = OAuthClient(tokenEndpoint: fixture.server.tokenEndpoint, clientID: "test-client")
                try await fixture.store.save(StoredCredentials(
                    auth: Auth(accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresAt: Date(timeIntervalSinceNow: -5)),
                    client: client))
                fixture.server.updateFaults { $0.unavailable = 1 }
                let transient = try await tokenctl(fixture.item("request", url))
                #expect(transient.status == 5, "\(transient.stderr)")
                #expect(transient.stdout.isEmpty)
                #expect(try await fixture.store.load()?.accessToken == issued.accessToken)
            }
        }

        @Test("plain http to a non-loopback host and an Authorization header are refused before anything is sent")
        func refusedRequests() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                let insecure = try await tokenctl(fixture.item("request", "http://example.com/resource"))
                #expect(insecure.status == 64)
                let header = try await tokenctl(
                    fixture.item("request", "-H", "Authorization: Bearer x", fixture.server.resourceURL.absoluteString))
                #expect(header.status == 64)
                #expect(fixture.server.stats.resourceRequests == 0)
            }
        }
    }
}
