import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth

extension TokenCtlNetworkTests {
    @Suite("tokenctl login --issuer: the browser and the device code, against a real OAuth server")
    struct TokenCtlSignInFlowTests {
        /// `login --issuer URL --client-id test-client` for the fixture's item, plus `extra`.
        static func login(_ fixture: NetworkFixture, _ extra: String...) -> [String] {
            fixture.item("login", "--issuer", fixture.server.issuer.absoluteString, "--client-id", "test-client") + extra
        }

        @Test("browser sign-in with a plain HTTP client as BROWSER: the URL printed, the tab signed in, the item stored")
        func browserWithPlainClient() async throws {
            try await NetworkFixture.with { fixture in
                let (result, page) = try await tokenctlWithPlainBrowser(Self.login(fixture, "--scope", "openid read"))
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("To sign in, open this URL"))
                #expect(result.stderr.contains(fixture.server.authorizationEndpoint.absoluteString + "?"))
                #expect(page.contains("You are signed in"))

                let stored = try #require(try await fixture.store.loadCredentials())
                #expect(stored.client?.tokenEndpoint == fixture.server.tokenEndpoint)
                #expect(stored.client?.revocationEndpoint == fixture.server.revocationEndpoint)
                #expect(stored.auth.scope == "openid read")
                #expect(stored.auth.identity?.subject == OAuthTestServer.subjectIdentifier(ofUser: "ada"))
                #expect(stored.client?.issuer == fixture.server.issuer)
                #expect(fixture.server.browserFlowStats.successfulExchanges == 1)
                let status = try await tokenctl(fixture.item("status"))
                #expect(status.stdout.hasPrefix("signed in as "), "\(status.stdout)")
                let token = try await tokenctl(fixture.item("token"))
                #expect(token.status == 0, "\(token.stderr)")
                #expect(token.stdout == stored.auth.accessToken + "\n")
            }
        }

        @Test("--no-browser only prints the URL: BROWSER is not run; nobody answers, so the time limit ends it (exit 5)")
        func noBrowser() async throws {
            try await NetworkFixture.with { fixture in
                let directory = try TemporaryDirectory()
                let marker = directory.url.appendingPathComponent("browser-ran").path
                let script = try directory.script("browser", "#!/bin/sh\ntouch \(marker)\n")
                let result = try await tokenctl(
                    Self.login(fixture, "--no-browser", "--time-limit", "1"), environment: ["BROWSER": script])
                #expect(result.status == 5, "\(result.stderr)")
                #expect(result.stderr.contains(fixture.server.authorizationEndpoint.absoluteString + "?"))
                #expect(result.stderr.contains("No sign-in answer came back"))
                #expect(!FileManager.default.fileExists(atPath: marker))
                #expect(try await fixture.store.loadCredentials() == nil)
            }
        }

        @Test("declined in the browser: exit 3, the server's code shown, and the item signed in before stays as it was")
        func declined() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                let before = try #require(try await fixture.store.loadCredentials())
                fixture.server.browserFlow.outcome = .deny
                let result = try await tokenctl(
                    Self.login(fixture), environment: ["BROWSER": "curl -sSL --max-time 60 -o /dev/null %s"])
                #expect(result.status == 3, "\(result.stderr)")
                #expect(result.stderr.contains("access_denied"))
                #expect(try await fixture.store.loadCredentials() == before)
            }
        }

        @Test("--device: the user code on stderr exactly as sent, polled until approved, the item stored")
        func device() async throws {
            try await NetworkFixture.with { fixture in
                fixture.server.deviceFlow.interval = 1
                async let running = tokenctl(Self.login(fixture, "--device", "--scope", "read"))
                try await waitUntil("a device code was issued") { !fixture.server.pendingUserCodes.isEmpty }
                let userCode = try #require(fixture.server.pendingUserCodes.first)
                #expect(fixture.server.decide(userCode: userCode, .approve(subject: "alice")))
                let result = try await running
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("enter the code:\n  \(userCode)\n"))
                #expect(result.stderr.contains(fixture.server.url("/device").absoluteString))
                let stored = try #require(try await fixture.store.loadCredentials())
                #expect(stored.auth.scope == "read")
                #expect(fixture.server.deviceFlowStats.polls(answered: "tokens") == 1)
            }
        }

        @Test("--device declined: exit 3 and nothing stored")
        func deviceDenied() async throws {
            try await NetworkFixture.with { fixture in
                fixture.server.deviceFlow.interval = 1
                async let running = tokenctl(Self.login(fixture, "--device"))
                try await waitUntil("a device code was issued") { !fixture.server.pendingUserCodes.isEmpty }
                fixture.server.decide(userCode: try #require(fixture.server.pendingUserCodes.first), .deny)
                let result = try await running
                #expect(result.status == 3, "\(result.stderr)")
                #expect(try await fixture.store.loadCredentials() == nil)
            }
        }

        @Test("usage: --issuer with --token-url, browser options with --device, a bad redirect path: exit 64")
        func usage() async throws {
            try await NetworkFixture.with { fixture in
                for extra in [
                    ["--token-url", fixture.server.tokenEndpoint.absoluteString], ["--device", "--no-browser"],
                    ["--redirect-path", "callback"], ["--device", "--client-credentials"],
                ] {
                    let result = try await tokenctl(Self.login(fixture) + extra)
                    #expect(result.status == 64, "\(extra): \(result.stderr)")
                }
                #expect(fixture.server.stats.tokenRequests == 0)
            }
        }

        @Test("an issuer whose metadata names another issuer: exit 64, nothing sent to any token endpoint")
        func issuerMismatch() async throws {
            try await NetworkFixture.with { fixture in
                fixture.server.discovery.advertisedIssuer = "https://elsewhere.example"
                let result = try await tokenctl(Self.login(fixture, "--no-browser"))
                #expect(result.status == 64, "\(result.stderr)")
                #expect(result.stderr.contains("another issuer"))
                #expect(fixture.server.stats.tokenRequests == 0)
            }
        }
        @Test("Microsoft's common: the {tenantid} template accepted, the tenant's issuer stored, refreshes checked against it")
        func microsoftCommon() async throws {
            try await NetworkFixture.with { fixture in
                let server = fixture.server
                let tenantA = "11111111-2222-3333-4444-555555555555"
                server.discovery.issuerPath = "/common/v2.0"
                server.discovery.tenantsByUser = ["ada": tenantA]
                server.browserFlow.sendsIssuer = false
                let (result, _) = try await tokenctlWithPlainBrowser(Self.login(fixture, "--scope", "openid"))
                #expect(result.status == 0, "\(result.stderr)")
                let tenantIssuer = URL(string: server.baseURL.absoluteString + "/\(tenantA)/v2.0")!
                var stored = try #require(try await fixture.store.loadCredentials())
                #expect(stored.auth.identity?.issuer == tenantIssuer)
                #expect(stored.client?.issuer == tenantIssuer)

                // The refreshed id_token names the same tenant: checked and kept.
                let refresh = try await tokenctl(fixture.item("refresh"))
                #expect(refresh.status == 0, "\(refresh.stderr)")
                stored = try #require(try await fixture.store.loadCredentials())
                #expect(stored.auth.identity?.issuer == tenantIssuer)
                #expect(stored.refreshedAt != nil)

                // One naming another tenant is refused, and the stored identity stays tenant A's.
                server.discovery.tenantsByUser = ["ada": "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"]
                let moved = try await tokenctl(fixture.item("refresh"))
                #expect(moved.status != 0)
                #expect(moved.stderr.contains("another issuer"), "\(moved.stderr)")
                stored = try #require(try await fixture.store.loadCredentials())
                #expect(stored.auth.identity?.issuer == tenantIssuer)
            }
        }
    }
}
