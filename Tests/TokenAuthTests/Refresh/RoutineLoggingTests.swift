import Foundation
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthTesting
import TokenAuthURLSession

/// swift-log's guidance for libraries: `trace` and `debug` for what a library does routinely, `info` and above only
/// for what an app's operator must act on — with no logging set up, those land on the app's terminal.
@Suite("A session's routine events log nothing at info or above", .timeLimit(.minutes(1)))
struct RoutineLoggingTests {
    @Test("sign-in, refresh, tokens adopted from another process, a transient failure and its backoff, invalid_grant and sign-out: all at debug or trace")
    func routineEventsStayBelowInfo() async throws {
        try await RefreshFixture.with { fixture in
            let capture = LogCapture()
            let server = fixture.server
            let clock = fixture.clock
            let client = OAuthClient(
                tokenEndpoint: server.tokenEndpoint, clientID: fixture.client.clientID,
                revocationEndpoint: server.revocationEndpoint)
            let transport = URLSessionHTTPTransport(logger: capture.logger("TokenAuth.URLSessionHTTPTransport"))
            let store = ControlledAuthStore()
            let manager = AuthManager(
                store: store,
                refresher: TokenEndpointClient(
                    client: client, transport: transport, wallClock: clock.wallClock,
                    logger: capture.logger("TokenAuth.TokenEndpointClient")),
                configuration: .init(backoff: Backoff(jitter: false)),
                revoker: TokenRevocationClient(
                    client: client, endpoint: server.revocationEndpoint, transport: transport,
                    logger: capture.logger("TokenAuth.TokenRevocationClient")),
                wallClock: clock.wallClock, clock: ManualClock(advancingOnSleep: true),
                logger: capture.logger("TokenAuth.AuthManager"))
            let events = EventLog(manager)

            // Sign in; the token expires; one refresh.
            try await manager.signIn(fixture.seed(expiresIn: 3600))
            clock.advance(by: 7200)
            _ = try await manager.validToken()
            #expect(server.stats.successfulRefreshes == 1)

            // Another process refreshed meanwhile: its tokens are adopted under the lock, and nothing is sent.
            clock.advance(by: 7200)
            let elsewhere = fixture.seed(expiresIn: 3600)
            store.replaceStored(elsewhere)
            #expect(try await manager.validToken() == elsewhere.accessToken)
            #expect(server.stats.successfulRefreshes == 1)

            // A transient failure (503): the tokens are kept and the manager backs off; after the backoff, a refresh.
            clock.advance(by: 7200)
            server.updateFaults { $0.unavailable = 1 }
            let transient = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(transient?.isTransient == true)
            clock.advance(by: 600)
            _ = try await manager.validToken()
            #expect(server.stats.successfulRefreshes == 2)

            // The server refuses the refresh token (invalid_grant): a sign-in is required.
            clock.advance(by: 7200)
            server.updateFaults { $0.invalidGrantRefreshes = 1 }
            let refused = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(refused?.isLoginRequired == true)

            // Signed in again, then out.
            try await manager.signIn(fixture.seed(expiresIn: 3600))
            try await manager.signOut()
            #expect(store.stored == nil)

            let seen = try await events.waitFor { $0.contains(.loggedOut) }
            for event: AuthEvent in [
                .saved, .refreshSucceeded, .adoptedFromStore, .refreshFailed(.transient),
                .refreshFailed(.permanent(oauthErrorCode: "invalid_grant")),
            ] {
                #expect(seen.contains(event), "\(event) happened")
            }
            let lines = capture.lines
            let loud = lines.filter { $0.level >= .info }
            #expect(loud.isEmpty, "logged at info or above: \(loud.map(\.description))")
            // Each routine event was logged, below info, so that the test cannot pass by logging nothing.
            for message in [
                "adopted newer tokens from the store", "refresh failed; backing off",
                "the authorization server rejected the refresh", "logged out", "token request finished",
            ] {
                #expect(lines.contains { $0.message == message && $0.level == .debug }, "\"\(message)\" at debug")
            }
        }
    }
}
