import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing

extension TokenCtlNetworkTests {
    /// A browser sign-in where no browser can be started — no `DISPLAY`, no `WAYLAND_DISPLAY`, no `BROWSER`, as over
    /// SSH — never waits for one: it signs in with a device code when the server offers one, as `gh auth login`
    /// does, and otherwise stops at once.
    @Suite("tokenctl login without a display")
    struct TokenCtlHeadlessLoginTests {
        static let headless: [String: String?] = ["DISPLAY": nil, "WAYLAND_DISPLAY": nil, "BROWSER": nil]

        @Test("the server offers the device flow: login says so, shows the code, and signs in when it is approved")
        func deviceCodeInstead() async throws {
            try await NetworkFixture.with { fixture in
                fixture.server.deviceFlow.interval = 1
                async let running = tokenctl(
                    TokenCtlSignInFlowTests.login(fixture, "--scope", "read"), environment: Self.headless)
                try await waitUntil("a device code was issued") { !fixture.server.pendingUserCodes.isEmpty }
                let userCode = try #require(fixture.server.pendingUserCodes.first)
                #expect(fixture.server.decide(userCode: userCode, .approve(subject: "alice")))
                let result = try await running
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("No browser can be started here"), "\(result.stderr)")
                #expect(result.stderr.contains("signing in with a code instead"), "\(result.stderr)")
                #expect(result.stderr.contains("enter the code:\n  \(userCode)\n"), "\(result.stderr)")
                #expect(fixture.server.browserFlowStats.authorizationRequests == 0, "no browser sign-in was begun")
                let stored = try #require(try await fixture.store.loadCredentials())
                #expect(stored.auth.scope == "read")
            }
        }

        @Test("the server offers no device flow: exit 64 at once, saying what to do, and nothing is sent or stored")
        func noDeviceFlow() async throws {
            try await NetworkFixture.with { fixture in
                fixture.server.discovery.omittedMembers = ["device_authorization_endpoint"]
                // The default --time-limit is 300 s; `tokenctl(_:)` gives up after 30: only an answer at once passes.
                let result = try await tokenctl(TokenCtlSignInFlowTests.login(fixture), environment: Self.headless)
                #expect(result.status == 64, "\(result.allOutput)")
                #expect(result.stderr.contains("No browser can be started here"), "\(result.stderr)")
                #expect(result.stderr.contains("offers no sign-in with a code"), "\(result.stderr)")
                for way in ["tokenctl import", "BROWSER", "--no-browser"] {
                    #expect(result.stderr.contains(way), "names \(way): \(result.stderr)")
                }
                #expect(fixture.server.browserFlowStats.authorizationRequests == 0)
                #expect(fixture.server.deviceFlowStats.authorizationRequests == 0)
                #expect(fixture.server.stats.tokenRequests == 0)
                #expect(try await fixture.store.loadCredentials() == nil)
            }
        }
    }
}
