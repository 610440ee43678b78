import Foundation
import OAuthTestServer
import OAuthTestSupport
import Synchronization
import Testing
@testable import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn

/// The device flow's numbers come from the server: each is bounded where it is read, so no server can make the
/// client poll in a busy loop or wait for years.
@Suite("Device authorization: the server's interval and expires_in are bounded", .timeLimit(.minutes(2)))
struct DeviceAuthorizationBoundsTests {
    @Test("the documented bounds: interval 1 s…60 s, device code lifetime at most 1 hour")
    func bounds() {
        #expect(DeviceAuthorization.minimumInterval == .seconds(1))
        #expect(DeviceAuthorization.maximumInterval == .seconds(60))
        #expect(DeviceAuthorization.maximumCodeLifetime == .seconds(3600))
    }

    @Test("an interval and an expires_in of years: polls 60 s apart, and the prompt says the code lives an hour")
    func yearsAreBounded() async throws {
        try await withServer { server in
            server.deviceFlow.interval = 100_000_000
            server.deviceFlow.expiresIn = 900_000_000
            let clock = ManualClock(advancingOnSleep: true)
            let shown = Mutex<Duration?>(nil)
            _ = try await DeviceAuthorizationTests.device(server, clock: clock).signIn { prompt in
                shown.withLock { $0 = prompt.expiresIn }
                server.decide(userCode: prompt.userCode, .approve(subject: "alice"), afterPolls: 1)
            }
            #expect(shown.withLock { $0 } == .seconds(3600))
            #expect(clock.sleeps == [.seconds(60), .seconds(60)])
        }
    }

    @Test("a sub-second interval is raised to 1 s: no busy loop, even while failures double the wait")
    func subSecondInterval() async throws {
        // The token endpoint gets the same body, which is no token response: each poll is a transient failure.
        let transport = CannedTransport(json: """
            {"device_code":"dc","user_code":"ABCD-EFGH","verification_uri":"https://auth.example.com/device",
             "expires_in":"10","interval":0.001}
            """)
        let clock = ManualClock(advancingOnSleep: true)
        let device = DeviceAuthorization(
            client: OAuthClient(tokenEndpoint: URL(string: "https://auth.example.com/token")!, clientID: "c"),
            deviceAuthorizationEndpoint: URL(string: "https://auth.example.com/device")!, transport: transport, clock: clock)
        await expectTokenAuthError(.malformedResponse) { try await device.signIn { _ in } }
        // 1 s, then doubled after each failure; the next wait (8 s) would end past the 10 s lifetime.
        #expect(clock.sleeps == [.seconds(1), .seconds(2), .seconds(4)])
    }

    @Test("the poll schedule stays within the bounds: slow_down stops adding at 60 s")
    func scheduleBounds() {
        var schedule = DevicePollSchedule(interval: .seconds(55), lifetime: .seconds(3600))
        schedule.record(.slowDown(interval: nil))
        #expect(schedule.interval == .seconds(60))
        schedule.record(.slowDown(interval: nil))
        #expect(schedule.nextWait(elapsed: .zero) == .seconds(60))
        #expect(DevicePollSchedule(interval: .seconds(86_400), lifetime: .seconds(3600)).interval == .seconds(60))
        #expect(DevicePollSchedule(interval: .milliseconds(1), lifetime: .seconds(3600)).interval == .seconds(1))
    }
}
