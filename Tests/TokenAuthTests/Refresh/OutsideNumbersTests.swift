import Foundation
import OAuthTestServer
import OAuthTestSupport
import Testing
@testable import TokenAuth
import TokenAuthTesting

/// `expires_in` and `Retry-After` are numbers the server chooses: whatever it sends, the tokens are timed sanely,
/// no wait is unbounded, and nothing traps.
@Suite("Outside numbers: the refresh leeway, and AuthManager against odd expires_in and Retry-After values")
struct OutsideNumbersTests {
    @Test("the refresh leeway is defined for any dates: a far expiry leaves the leeway as it is, and nothing traps")
    func leewayOfFarDates() {
        let issued = ManualWallClock.epoch
        let leeway = Duration.seconds(60)
        for lifetime in [1e17, 1e300, .infinity, 9.3e15, 9.2e15] {
            let auth = Auth(accessToken: "at", expiresAt: issued.addingTimeInterval(lifetime), issuedAt: issued)
            #expect(auth.refreshLeeway(atMost: leeway) == leeway, "lifetime \(lifetime)")
            #expect(auth.isFresh(at: issued, leeway: leeway), "lifetime \(lifetime)")
        }
        let ancient = Auth(accessToken: "at", expiresAt: .distantFuture, issuedAt: .distantPast)
        #expect(ancient.refreshLeeway(atMost: leeway) == leeway)
        let notANumber = Auth(accessToken: "at", expiresAt: Date(timeIntervalSinceReferenceDate: .nan), issuedAt: issued)
        #expect(notANumber.refreshLeeway(atMost: leeway) == leeway)
        // Short lifetimes still bound it to half.
        let short = Auth(accessToken: "at", expiresAt: issued.addingTimeInterval(30), issuedAt: issued)
        #expect(short.refreshLeeway(atMost: leeway) == .seconds(15))
    }

    @Test("expires_in 1e17: the token is served without a refresh, and again an hour later")
    func hugeExpiresIn() async throws {
        try await RefreshFixture.with { fixture in
            fixture.server.updateFaults { $0.expiresInJSON = "1e17" }
            let manager = fixture.manager(store: InMemoryAuthStore(fixture.seed()))

            let first = try await manager.validAuth()
            #expect(fixture.server.stats.refreshGrants == 1)
            #expect(first.expiresAt == fixture.clock.now.addingTimeInterval(TokenResponse.maximumLifetime.timeInterval))
            fixture.clock.advance(by: 3600)
            #expect(try await manager.validToken() == first.accessToken)
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }

    @Test("expires_in -5 and 0: the tokens arrive already expired, so each later use refreshes (within the limit)",
        arguments: ["-5", "0"])
    func expiredOnArrival(value: String) async throws {
        try await RefreshFixture.with { fixture in
            fixture.server.updateFaults { $0.expiresInJSON = value }
            let manager = fixture.manager(store: InMemoryAuthStore(fixture.seed()))

            let first = try await manager.validAuth()
            #expect(first.expiresAt == fixture.clock.now)
            #expect(fixture.server.stats.refreshGrants == 1)
            fixture.clock.advance(by: 1)
            #expect(try await manager.validToken() != first.accessToken)
            #expect(fixture.server.stats.refreshGrants == 2)
        }
    }

    @Test("expires_in \"3599\", a numeric string: the token lives 3599 s and is refreshed only inside the leeway")
    func numericStringExpiresIn() async throws {
        try await RefreshFixture.with { fixture in
            fixture.server.updateFaults { $0.expiresInJSON = #""3599""# }
            let manager = fixture.manager(store: InMemoryAuthStore(fixture.seed()))

            let first = try await manager.validAuth()
            #expect(first.expiresAt == fixture.clock.now.addingTimeInterval(3599))
            fixture.clock.advance(by: 3599 - 61)
            #expect(try await manager.validToken() == first.accessToken)
            fixture.clock.advance(by: 2)
            #expect(try await manager.validToken() == first.accessToken)  // 59 s left: refreshed beside the caller
            await manager.refreshBesideEnded()
            #expect(try await manager.validToken() != first.accessToken)
            #expect(fixture.server.stats.refreshGrants == 2)
        }
    }

    @Test("a Retry-After of a year parks the manager for an hour at most, then it refreshes")
    func yearLongRetryAfter() async throws {
        try await RefreshFixture.with { fixture in
            fixture.server.updateFaults { $0.unavailable = 1; $0.retryAfter = "31536000" }
            let manager = fixture.manager(store: InMemoryAuthStore(fixture.seed()))

            let first = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(first?.retryAfter == TokenAuthError.maximumRetryAfter)
            #expect(first?.code == .serverError)
            fixture.clock.advance(by: 3599)
            await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(fixture.server.stats.tokenRequests == 1)
            fixture.clock.advance(by: 2)
            _ = try await manager.validToken()
            #expect(fixture.server.stats.successfulRefreshes == 1)
        }
    }
}
