import Foundation
import OAuthTestServer
import OAuthTestSupport
import Testing
@testable import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn

/// Device polls answered with other statuses than RFC 6749's 400, as providers do: against a real `OAuthTestServer`
/// configured to answer so. The error code decides, never the status.
@Suite("Device polls answered with providers' statuses (Google's 428 and 403, GitHub's 200)", .timeLimit(.minutes(2)))
struct DevicePollStatusTests {
    static func device(_ server: OAuthTestServer, clock: ManualClock) -> DeviceAuthorization {
        DeviceAuthorization(
            client: server.client(id: "test-client"), deviceAuthorizationEndpoint: server.deviceAuthorizationEndpoint,
            transport: DeviceAuthorizationTests.transport, clock: clock)
    }

    static func configuration(statuses: [String: Int], answers: OAuthTestServer.TokenAnswerFormat = .json)
        -> OAuthTestServer.Configuration
    {
        var configuration = OAuthTestServer.Configuration()
        configuration.tokenErrorStatuses = statuses
        configuration.tokenAnswers = answers
        return configuration
    }

    /// Google's statuses: `authorization_pending` 428, `slow_down` 403 (and `access_denied` 403).
    /// https://developers.google.com/identity/protocols/oauth2/limited-input-device#step-6:-handle-responses-to-polling-requests
    static let google = ["authorization_pending": 428, "slow_down": 403, "access_denied": 403]
    /// GitHub's: every error with 200, JSON ones too.
    static let github = ["authorization_pending": 200, "slow_down": 200, "access_denied": 200, "expired_token": 200]

    @Test("pending and slow_down keep polling whatever their status; then the tokens", arguments: [google, github])
    func pendingAndSlowDown(statuses: [String: Int]) async throws {
        try await withServer(Self.configuration(statuses: statuses)) { server in
            server.deviceFlow.slowDownPolls = 1
            let clock = ManualClock(advancingOnSleep: true)
            let credentials = try await Self.device(server, clock: clock).signIn(scope: "read") { prompt in
                server.decide(userCode: prompt.userCode, .approve(subject: "alice"), afterPolls: 1)
            }
            // 5 s, slow_down → 10 s, pending → 10 s, then tokens.
            #expect(clock.sleeps == [.seconds(5), .seconds(10), .seconds(10)])
            #expect(server.deviceFlowStats.polls(answered: "slow_down") == 1)
            #expect(server.deviceFlowStats.polls(answered: "authorization_pending") == 1)
            #expect(server.deviceFlowStats.polls(answered: "tokens") == 1)
            #expect(credentials.auth.refreshToken != nil)
        }
    }

    @Test("access_denied ends the flow as declined, not transient, whatever its status", arguments: [google, github])
    func denied(statuses: [String: Int]) async throws {
        try await withServer(Self.configuration(statuses: statuses)) { server in
            let clock = ManualClock(advancingOnSleep: true)
            let error = await expectSignInError(.denied) {
                try await Self.device(server, clock: clock).signIn { prompt in
                    server.decide(userCode: prompt.userCode, .deny)
                }
            }
            #expect(error?.isTransient == false)
            #expect(server.deviceFlowStats.polls == 1)
        }
    }

    @Test("GitHub's slow_down naming its interval, in a 200 form answer to a client that asked for JSON elsewhere")
    func githubFormSlowDown() async throws {
        try await withServer(Self.configuration(statuses: Self.github, answers: .form)) { server in
            server.deviceFlow.slowDownPolls = 1
            server.deviceFlow.slowDownInterval = 11
            let clock = ManualClock(advancingOnSleep: true)
            _ = try await Self.device(server, clock: clock).signIn { prompt in
                server.decide(userCode: prompt.userCode, .approve(subject: "alice"))
            }
            #expect(clock.sleeps == [.seconds(5), .seconds(11)])
            #expect(server.deviceFlowStats.polls(answered: "tokens") == 1)
        }
    }
}
