import Foundation
import HTTPTypes
import OAuthTestServer
import OAuthTestSupport
import Synchronization
import Testing
@testable import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn
import TokenAuthURLSession

@Suite("Device authorization grant (RFC 8628) against the local OAuth server", .timeLimit(.minutes(2)))
struct DeviceAuthorizationTests {
    /// The real transport with the patience of a busy CI machine.
    static let transport = URLSessionHTTPTransport(timeout: .seconds(60))

    /// A server configuration whose clock is `clock`: it starts at a fixed date and moves only when `clock` does.
    static func configuration(following clock: ManualClock) -> OAuthTestServer.Configuration {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        return OAuthTestServer.Configuration(clock: {
            let elapsed = clock.now.offset.components
            return start.addingTimeInterval(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
        })
    }

    static func device(_ server: OAuthTestServer, clock: ManualClock, clientID: String = "test-client") -> DeviceAuthorization {
        DeviceAuthorization(
            client: server.client(id: clientID), deviceAuthorizationEndpoint: server.deviceAuthorizationEndpoint,
            transport: transport, clock: clock)
    }

    /// A device sign-in that reaches nothing but `transport`.
    static func offline(
        _ transport: CannedTransport, endpoint: String = "https://auth.example.com/device", secret: String? = nil
    ) -> DeviceAuthorization {
        DeviceAuthorization(
            client: OAuthClient(tokenEndpoint: URL(string: "https://auth.example.com/token")!, clientID: "c", clientSecret: secret),
            deviceAuthorizationEndpoint: URL(string: endpoint)!, transport: transport, clock: ManualClock(advancingOnSleep: true))
    }

    @Test("pending, then the user approves: tokens the server honours, the client recorded, AuthManager accepts them")
    func pendingThenApproval() async throws {
        try await withServer { server in
            let clock = ManualClock()
            let shown = PromptRecorder()
            async let signingIn = Self.device(server, clock: clock).signIn(scope: "read") { prompt in
                shown.record(prompt)
            }
            await clock.waitUntilSleeps(1)
            clock.advance(by: .seconds(5))  // first poll: the user has not decided
            await clock.waitUntilSleeps(2)
            #expect(server.deviceFlowStats.polls(answered: "authorization_pending") == 1)
            let prompt = try #require(shown.prompt)
            #expect(server.decide(userCode: prompt.userCode, .approve(subject: "alice")))
            clock.advance(by: .seconds(5))
            let credentials = try await signingIn

            #expect(clock.sleeps == [.seconds(5), .seconds(5)])
            #expect(server.deviceFlowStats.polls == 2)
            #expect(server.deviceFlowStats.polls(answered: "tokens") == 1)
            #expect(credentials.client == server.client(id: "test-client"))
            #expect(credentials.auth.scope == "read")
            #expect(credentials.auth.refreshToken != nil)
            #expect(try await call(.get, server.resourceURL, bearer: credentials.auth.accessToken).status == 200)

            let manager = AuthManager(
                store: InMemoryAuthStore(), refresher: TokenEndpointClient(client: credentials.client!, transport: Self.transport))
            try await manager.signIn(credentials.auth)
            #expect(try await manager.validToken() == credentials.auth.accessToken)
        }
    }

    @Test("the prompt carries verification_uri, verification_uri_complete, user_code and expires_in")
    func prompt() async throws {
        try await withServer { server in
            let clock = ManualClock(advancingOnSleep: true)
            let shown = PromptRecorder()
            _ = try await Self.device(server, clock: clock).signIn { prompt in
                shown.record(prompt)
                server.decide(userCode: prompt.userCode, .approve(subject: "alice"))
            }
            let prompt = try #require(shown.prompt)
            #expect(prompt.verificationURI == server.url("/device"))
            #expect(prompt.verificationURIComplete == server.url("/device?user_code=\(prompt.userCode)"))
            #expect(prompt.expiresIn == .seconds(600))
            #expect(prompt.userCode.count == 9)
            #expect("\(prompt)" == "Open \(server.url("/device").absoluteString) and enter \(prompt.userCode).")
        }
    }

    @Test("without an interval from the server, polls are 5 s apart; without verification_uri_complete it is nil")
    func defaultInterval() async throws {
        try await withServer { server in
            server.deviceFlow.interval = nil
            server.deviceFlow.sendsVerificationURIComplete = false
            let clock = ManualClock(advancingOnSleep: true)
            let shown = PromptRecorder()
            _ = try await Self.device(server, clock: clock).signIn { prompt in
                shown.record(prompt)
                server.decide(userCode: prompt.userCode, .approve(subject: "alice"), afterPolls: 2)
            }
            #expect(clock.sleeps == [.seconds(5), .seconds(5), .seconds(5)])
            #expect(shown.prompt != nil)
            #expect(shown.prompt?.verificationURIComplete == nil)
        }
    }

    @Test("the server's interval is honoured")
    func serverInterval() async throws {
        try await withServer { server in
            server.deviceFlow.interval = 7
            let clock = ManualClock(advancingOnSleep: true)
            _ = try await Self.device(server, clock: clock).signIn { prompt in
                server.decide(userCode: prompt.userCode, .approve(subject: "alice"), afterPolls: 1)
            }
            #expect(clock.sleeps == [.seconds(7), .seconds(7)])
        }
    }

    @Test("a server that names the new interval with slow_down, as GitHub's does: polls wait that long from then on")
    func slowDownWithInterval() async throws {
        try await withServer { server in
            server.deviceFlow.slowDownPolls = 1
            server.deviceFlow.slowDownInterval = 13
            let clock = ManualClock(advancingOnSleep: true)
            _ = try await Self.device(server, clock: clock).signIn { prompt in
                server.decide(userCode: prompt.userCode, .approve(subject: "alice"), afterPolls: 1)
            }
            // 5 s, then slow_down naming 13 s → 13 s, pending → 13 s, then tokens.
            #expect(clock.sleeps == [.seconds(5), .seconds(13), .seconds(13)])
            #expect(server.deviceFlowStats.polls(answered: "slow_down") == 1)
        }
    }

    @Test("slow_down adds 5 s to the interval, for good")
    func slowDown() async throws {
        try await withServer { server in
            server.deviceFlow.slowDownPolls = 2
            let clock = ManualClock(advancingOnSleep: true)
            _ = try await Self.device(server, clock: clock).signIn { prompt in
                server.decide(userCode: prompt.userCode, .approve(subject: "alice"), afterPolls: 1)
            }
            // 5 s, then slow_down → 10 s, slow_down → 15 s, pending → still 15 s, then tokens.
            #expect(clock.sleeps == [.seconds(5), .seconds(10), .seconds(15), .seconds(15)])
            #expect(server.deviceFlowStats.polls(answered: "slow_down") == 2)
            #expect(server.deviceFlowStats.polls(answered: "authorization_pending") == 1)
            #expect(server.deviceFlowStats.polls(answered: "tokens") == 1)
        }
    }

    @Test("access_denied stops polling with a permanent accessDenied")
    func denied() async throws {
        try await withServer { server in
            let clock = ManualClock(advancingOnSleep: true)
            let error = await expectSignInError(.denied) {
                try await Self.device(server, clock: clock).signIn { prompt in
                    server.decide(userCode: prompt.userCode, .deny, afterPolls: 1)
                }
            }
            #expect(error?.isTransient == false)
            #expect(error?.oauthErrorCode == "access_denied")
            #expect(server.deviceFlowStats.polls == 2)
            #expect(clock.sleeps.count == 2)
        }
    }

    @Test("expired_token stops polling with a permanent expired")
    func expiredByServer() async throws {
        try await withServer { server in
            let clock = ManualClock(advancingOnSleep: true)
            let error = await expectSignInError(.codeExpired) {
                try await Self.device(server, clock: clock).signIn { prompt in
                    server.decide(userCode: prompt.userCode, .expire)
                }
            }
            #expect(error?.isTransient == false)
            #expect(error?.oauthErrorCode == "expired_token")
            #expect(server.deviceFlowStats.polls == 1)
        }
    }

    @Test("the client gives up at expires_in: no poll at or after the expiry")
    func givesUpAtExpiry() async throws {
        let clock = ManualClock(advancingOnSleep: true)
        // The server's clock is the test's, too: by real time, a loaded machine once let the 12 s pass before the
        // first poll, and the server answered expired_token.
        try await withServer(Self.configuration(following: clock)) { server in
            server.deviceFlow.expiresIn = 12
            let error = await expectSignInError(.codeExpired) {
                try await Self.device(server, clock: clock).signIn { _ in }
            }
            #expect(error?.oauthErrorCode == nil)
            // Polls at 5 s and 10 s; the next would be at 15 s, past the 12 s lifetime.
            #expect(clock.sleeps == [.seconds(5), .seconds(5)])
            #expect(server.deviceFlowStats.polls == 2)
        }
    }

    @Test("a transient failure while polling doubles the next wait and polling goes on")
    func transientWhilePolling() async throws {
        try await withServer { server in
            let clock = ManualClock(advancingOnSleep: true)
            _ = try await Self.device(server, clock: clock).signIn { prompt in
                server.updateFaults { $0.serverErrors = 2 }
                server.decide(userCode: prompt.userCode, .approve(subject: "alice"))
            }
            #expect(clock.sleeps == [.seconds(5), .seconds(10), .seconds(20)])
            #expect(server.deviceFlowStats.polls(answered: "tokens") == 1)
        }
    }

    @Test("a client the server does not know is a permanent rejection at the device authorization endpoint")
    func unknownClient() async throws {
        try await withServer { server in
            let clock = ManualClock(advancingOnSleep: true)
            let error = await expectTokenAuthError(.rejected) {
                try await Self.device(server, clock: clock, clientID: "stranger").signIn { _ in
                    Issue.record("no prompt without a code")
                }
            }
            #expect(error?.oauthErrorCode == "invalid_client")
            #expect(error?.isTransient == false)
            #expect(server.deviceFlowStats.polls == 0)
            #expect(clock.sleeps.isEmpty)
        }
    }

    @Test("a confidential client's secret never appears in an error, even when the server echoes it")
    func secretRedacted() async throws {
        let transport = CannedTransport(
            status: .badRequest, json: #"{"error":"invalid_client","error_description":"bad secret s3cret-value"}"#)
        let device = Self.offline(transport, secret: "s3cret-value")
        let error = await expectTokenAuthError(.rejected) { try await device.signIn { _ in } }
        #expect(error.map { "\($0)".contains("s3cret-value") } == false)
        #expect(error?.oauthError?.errorDescription == "bad secret <redacted>")
    }

    @Test("plain http to a host that is not loopback is refused before anything is sent")
    func insecureEndpoint() async throws {
        let transport = CannedTransport(status: .ok, json: "{}")
        let device = Self.offline(transport, endpoint: "http://auth.example.com/device")
        await expectTokenAuthError(.insecureEndpoint) { try await device.signIn { _ in } }
        #expect(transport.sendCount == 0)
    }

    @Test("a 2xx answer that is no device authorization is a misconfiguration, not transient; nothing is polled",
          arguments: [
            #"{"user_code":"ABCD-EFGH","verification_uri":"https://x.example/d","expires_in":600}"#,
            #"{"device_code":"d","user_code":"ABCD-EFGH","expires_in":600}"#,
            #"{"device_code":"d","user_code":"ABCD-EFGH","verification_uri":"https://x.example/d"}"#,
            #"["not", "an", "object"]"#,
          ])
    func unusableAnswer(_ json: String) async throws {
        let transport = CannedTransport(status: .ok, json: json)
        let device = Self.offline(transport)
        let error = await expectSignInError(.unusableDeviceAnswer) { try await device.signIn { _ in } }
        #expect(error?.isTransient == false)
        #expect(error?.isMisconfiguration == true)
        #expect(transport.sendCount == 1)
    }

    @Test("Google's verification_url stands for verification_uri")
    func googleVerificationURL() async throws {
        let transport = CannedTransport(
            status: .ok,
            json: #"{"device_code":"d","user_code":"ABCD-EFGH","verification_url":"https://www.google.com/device","expires_in":1800,"interval":5}"#)
        let shown = PromptRecorder()
        // The canned transport answers every request alike, so the first poll reads a device answer as a token
        // answer; what matters here is the prompt shown before it.
        _ = try? await Self.offline(transport).signIn { prompt in shown.record(prompt) }
        let prompt = try #require(shown.prompt)
        #expect(prompt.verificationURI == URL(string: "https://www.google.com/device")!)
        #expect(prompt.userCode == "ABCD-EFGH")
    }

    @Test("a device sign-in needs the device authorization endpoint in the metadata")
    func missingDeviceEndpoint() async throws {
        try await withServer { server in
            server.discovery.omittedMembers = ["device_authorization_endpoint"]
            let metadata = try await Discovery(transport: Self.transport).metadata(forIssuer: server.issuer)
            #expect(metadata.deviceAuthorizationEndpoint == nil)
            let error = await expectSignInError(.missingEndpoint) {
                try DeviceAuthorization(metadata: metadata, clientID: "test-client", transport: Self.transport)
            }
            #expect(error?.member == "device_authorization_endpoint")
        }
    }

    @Test("discovery, then the device flow, with nothing but the issuer and the client id")
    func discoveryThenDevice() async throws {
        try await withServer { server in
            let metadata = try await Discovery(transport: Self.transport).metadata(forIssuer: server.issuer)
            let device = try DeviceAuthorization(
                metadata: metadata, clientID: "test-client", transport: Self.transport,
                clock: ManualClock(advancingOnSleep: true))
            let credentials = try await device.signIn { prompt in
                server.decide(userCode: prompt.userCode, .approve(subject: "alice"))
            }
            #expect(credentials.client?.tokenEndpoint == server.tokenEndpoint)
            #expect(credentials.client?.revocationEndpoint == server.revocationEndpoint)
            #expect(try await call(.get, server.resourceURL, bearer: credentials.auth.accessToken).status == 200)
        }
    }
}

/// Keeps the prompt a device flow showed.
private final class PromptRecorder: Sendable {
    private let shown = Mutex<DeviceAuthorization.Prompt?>(nil)

    var prompt: DeviceAuthorization.Prompt? { shown.withLock { $0 } }

    func record(_ prompt: DeviceAuthorization.Prompt) {
        shown.withLock { $0 = prompt }
    }
}
