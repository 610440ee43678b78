import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import Testing
import TestSupport
import TokenAuth

extension TokenCtlNetworkTests {
    /// `tokenctl login` against a server without discovery: the endpoints given by hand, and no grant chosen that
    /// the user did not ask for.
    @Suite("tokenctl login with endpoints by hand")
    struct TokenCtlEndpointsByHandTests {
        /// `login --token-url T --client-id test-client` for the fixture's item, plus `extra`.
        static func login(_ fixture: NetworkFixture, _ extra: String...) -> [String] {
            fixture.item("login", "--token-url", fixture.server.tokenEndpoint.absoluteString, "--client-id", "test-client")
                + extra
        }

        @Test("the browser or --device without the endpoint it needs: exit 64 naming the flag, and nothing is sent")
        func missingEndpoint() async throws {
            try await NetworkFixture.with { fixture in
                let device = try await tokenctl(Self.login(fixture, "--device"))
                #expect(device.status == 64)
                #expect(device.stderr.contains("--device-authorization-url"), "\(device.stderr)")
                let browser = try await tokenctl(Self.login(fixture))
                #expect(browser.status == 64)
                #expect(browser.stderr.contains("--authorization-url"), "\(browser.stderr)")
                let misplaced = try await tokenctl(
                    Self.login(fixture, "--username", "alice", "--password-stdin", "--authorization-url",
                               fixture.server.authorizationEndpoint.absoluteString),
                    stdin: NetworkFixture.password + "\n")
                #expect(misplaced.status == 64)
                #expect(fixture.server.stats.tokenRequests == 0, "no grant was sent, client credentials least of all")
                #expect(fixture.server.stats.clientCredentialsGrants == 0)
                #expect(try await fixture.store.loadCredentials() == nil)
            }
        }

        @Test("--provider github: the browser sign-in at GitHub's documented endpoint, with PKCE; nothing sent before")
        func githubProvider() async throws {
            try await NetworkFixture.with { fixture in
                let result = try await tokenctl(fixture.item(
                    "login", "--provider", "github", "--client-id", "Iv1.0123456789abcdef", "--no-browser",
                    "--time-limit", "1"))
                #expect(result.status == 5, "the time limit ended it: \(result.stderr)")
                let url = try #require(result.stderr.split(separator: "\n").first { $0.contains("https://github.com/") })
                let components = try #require(URLComponents(string: url.trimmingCharacters(in: .whitespaces)))
                #expect(components.host == "github.com")
                #expect(components.path == "/login/oauth/authorize")
                let query = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
                #expect(query["client_id"] == "Iv1.0123456789abcdef")
                #expect(query["code_challenge_method"] == "S256")
                #expect(query["redirect_uri"]?.hasPrefix("http://127.0.0.1:") == true)
                #expect(try await fixture.store.loadCredentials() == nil)
            }
        }

        @Test("--provider: an unknown name, or with --issuer, is a usage error (exit 64)")
        func providerUsage() async throws {
            try await NetworkFixture.with { fixture in
                let unknown = try await tokenctl(fixture.item("login", "--provider", "gitea", "--client-id", "c"))
                #expect(unknown.status == 64)
                #expect(unknown.stderr.contains("github, google, gitlab, microsoft[=TENANT]"), "\(unknown.stderr)")
                let both = try await tokenctl(fixture.item(
                    "login", "--provider", "github", "--issuer", fixture.server.issuer.absoluteString, "--client-id", "c"))
                #expect(both.status == 64)
                #expect(fixture.server.stats.tokenRequests == 0)
            }
        }

        @Test("--authorization-url with --token-url: the browser sign-in, the code exchanged once, the item stored")
        func browserByHand() async throws {
            try await NetworkFixture.with { fixture in
                let (result, _) = try await tokenctlWithPlainBrowser(Self.login(
                    fixture, "--authorization-url", fixture.server.authorizationEndpoint.absoluteString, "--scope", "read"))
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains(fixture.server.authorizationEndpoint.absoluteString + "?"))
                #expect(fixture.server.browserFlowStats.successfulExchanges == 1)
                #expect(fixture.server.stats.clientCredentialsGrants == 0)
                let stored = try #require(try await fixture.store.loadCredentials())
                #expect(stored.client?.tokenEndpoint == fixture.server.tokenEndpoint)
                #expect(stored.auth.scope == "read")
            }
        }

        @Test("--device with --device-authorization-url: the code shown, polled until approved, the item stored")
        func deviceByHand() async throws {
            try await NetworkFixture.with { fixture in
                fixture.server.deviceFlow.interval = 1
                async let running = tokenctl(Self.login(
                    fixture, "--device", "--device-authorization-url",
                    fixture.server.deviceAuthorizationEndpoint.absoluteString))
                try await waitUntil("a device code was issued") { !fixture.server.pendingUserCodes.isEmpty }
                let userCode = try #require(fixture.server.pendingUserCodes.first)
                #expect(fixture.server.decide(userCode: userCode, .approve(subject: "alice")))
                let result = try await running
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("enter the code:\n  \(userCode)\n"))
                #expect(fixture.server.deviceFlowStats.polls(answered: "tokens") == 1)
                #expect(fixture.server.stats.clientCredentialsGrants == 0)
                #expect(try await fixture.store.loadCredentials() != nil)
            }
        }
    }
}
