import Foundation
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
@testable import TokenAuth
import TokenAuthURLSession

@Suite("AuthManager against a real OAuth server")
struct AuthManagerTests {
    @Test("a valid token is served from memory without asking the server")
    func validTokenFromMemory() async throws {
        try await RefreshFixture.with { fixture in
            let auth = fixture.seed(expiresIn: 3600)
            let manager = fixture.manager(store: InMemoryAuthStore(auth))

            let first = try await manager.validToken()
            let second = try await manager.validToken()
            #expect(first == auth.accessToken)
            #expect(second == auth.accessToken)
            #expect(fixture.server.stats.tokenRequests == 0)
        }
    }

    @Test("a token without a known expiry is never refreshed proactively")
    func noExpiry() async throws {
        try await RefreshFixture.with { fixture in
            let auth = Auth(accessToken: "opaque", refreshToken: "r")
            let manager = fixture.manager(store: InMemoryAuthStore(auth))
            fixture.clock.advance(by: 1_000_000)
            let token = try await manager.validToken()
            #expect(token == "opaque")
            #expect(fixture.server.stats.tokenRequests == 0)
        }
    }

    @Test("nothing stored: loginRequired, and no request")
    func nothingStored() async throws {
        try await RefreshFixture.with { fixture in
            let manager = fixture.manager(store: InMemoryAuthStore())
            let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(error?.isLoginRequired == true)
            #expect(fixture.server.stats.tokenRequests == 0)
        }
    }

    @Test("1,000 concurrent callers over an expired token cause exactly one refresh grant, and all succeed")
    func singleFlightInMemory() async throws {
        try await RefreshFixture.with { fixture in
            let manager = fixture.manager(store: InMemoryAuthStore(fixture.seed()))

            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<1000 { group.addTask { try await manager.validToken() } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(fixture.server.stats.refreshGrants == 1)
            #expect(fixture.server.stats.reuseDetections == 0)
        }
    }

    @Test("a rejection of an already-replaced token returns the current one without a second refresh")
    func staleRejection() async throws {
        try await RefreshFixture.with { fixture in
            let old = fixture.seed()
            let manager = fixture.manager(store: InMemoryAuthStore(old))
            let new = try await manager.validToken()

            let afterStaleRejection = try await manager.refresh(rejecting: old.accessToken)
            #expect(afterStaleRejection.accessToken == new)
            #expect(fixture.server.stats.refreshGrants == 1)

            let afterCurrentRejection = try await manager.refresh(rejecting: new)
            #expect(afterCurrentRejection.accessToken != new)
            #expect(fixture.server.stats.refreshGrants == 2)
        }
    }

    @Test("without a new refresh token in the response, the old one is kept (RFC 6749 §6)")
    func keepsRefreshTokenWithoutRotation() async throws {
        try await RefreshFixture.with(.init(rotateRefreshTokens: false)) { fixture in
            let seeded = fixture.seed()
            let store = InMemoryAuthStore(seeded)
            let manager = fixture.manager(store: store)
            _ = try await manager.validToken()
            #expect(store.current?.refreshToken == seeded.refreshToken)
            #expect(store.current?.accessToken != seeded.accessToken)
        }
    }

    @Test("invalid_grant is loginRequired with the RFC code; the entry is kept, says sign-in required, and is not retried")
    func permanentFailureKeepsCredentials() async throws {
        try await RefreshFixture.with { fixture in
            fixture.server.updateFaults { $0.invalidGrantRefreshes = 1 }
            let seeded = fixture.seed()
            let store = InMemoryAuthStore(seeded)
            let manager = fixture.manager(store: store)
            let log = EventLog(manager)

            let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(error?.isLoginRequired == true)
            #expect(error?.oauthErrorCode == "invalid_grant")
            let kept = try #require(store.current)
            #expect(kept.accessToken == seeded.accessToken)
            #expect(kept.refreshToken == nil, "the dead refresh token is not kept for anyone to send again")
            #expect(kept.endReason?.contains("invalid_grant") == true)
            // The same refresh token is not sent again.
            let again = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(again?.isLoginRequired == true)
            #expect(fixture.server.stats.refreshGrants == 1)
            try await log.waitFor { $0.contains(.refreshFailed(.permanent(oauthErrorCode: "invalid_grant"))) }
        }
    }

    @Test("with the erase policy, a permanent rejection erases the stored credentials")
    func permanentFailureErasePolicy() async throws {
        try await RefreshFixture.with { fixture in
            fixture.server.updateFaults { $0.invalidGrantRefreshes = 1 }
            let store = InMemoryAuthStore(fixture.seed())
            let manager = fixture.manager(store: store, configuration: .init(rejectionPolicy: .eraseStoredCredentials))
            await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(store.current == nil)
        }
    }

    @Test("transient failures (500, malformed, unreachable) keep the tokens untouched", arguments: ["500", "malformed", "unreachable"])
    func transientFailures(kind: String) async throws {
        try await RefreshFixture.with { fixture in
            let seeded = fixture.seed()
            let store = InMemoryAuthStore(seeded)
            var refresher = fixture.refresher
            switch kind {
            case "500": fixture.server.updateFaults { $0.serverErrors = 1 }
            case "malformed": fixture.server.updateFaults { $0.malformed = 1 }
            default:
                let endpoint = try await withServer { $0.tokenEndpoint }  // nothing listens there any more
                refresher = TokenEndpointClient(client: OAuthClient(tokenEndpoint: endpoint, clientID: "test-client"), transport: URLSessionHTTPTransport(), wallClock: fixture.clock.wallClock)
            }
            let manager = AuthManager(store: store, refresher: refresher, wallClock: fixture.clock.wallClock)

            let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(error?.isTransient == true)
            #expect(error?.description.contains("kept") == true)
            #expect(store.current?.isSameVersion(as: seeded) == true)
            // Marked before the grant: whether the server spent the refresh token cannot be known from here.
            #expect(store.current?.refreshStartedAt != nil)
            #expect(store.saveCount == 0)
        }
    }

    @Test("503 with Retry-After: no request before it has passed, then a successful refresh")
    func retryAfterIsHonoured() async throws {
        try await RefreshFixture.with { fixture in
            fixture.server.updateFaults { $0.unavailable = 1; $0.retryAfter = "30" }
            let manager = fixture.manager(store: InMemoryAuthStore(fixture.seed()))

            let first = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(first?.retryAfter == .seconds(30))
            fixture.clock.advance(by: 29)
            let early = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(early?.isTransient == true)
            #expect(fixture.server.stats.tokenRequests == 1)

            fixture.clock.advance(by: 2)
            _ = try await manager.validToken()
            #expect(fixture.server.stats.tokenRequests == 2)
            #expect(fixture.server.stats.successfulRefreshes == 1)
        }
    }

    @Test("repeated transient failures back off exponentially: 1 s, 2 s, 4 s")
    func exponentialBackoff() async throws {
        try await RefreshFixture.with { fixture in
            fixture.server.updateFaults { $0.serverErrors = 3 }
            let manager = fixture.manager(store: InMemoryAuthStore(fixture.seed()), configuration: .init(refreshLimit: 10, backoff: Backoff(jitter: false)))

            var delays: [Duration?] = []
            for _ in 0..<3 {
                let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
                delays.append(error?.retryAfter)
                fixture.clock.advance(by: 10)
            }
            #expect(delays == [.seconds(1), .seconds(2), .seconds(4)])
            _ = try await manager.validToken()
            #expect(fixture.server.stats.tokenRequests == 4)
        }
    }

    @Test("jitter draws each wait from the upper half of the exponential step")
    func jitter() {
        let backoff = Backoff(initial: .seconds(8), maximum: .seconds(60), jitter: true)
        #expect(backoff.delay(afterFailures: 1, retryAfter: nil, random: { $0.lowerBound }) == .seconds(4))
        #expect(backoff.delay(afterFailures: 2, retryAfter: nil, random: { $0.upperBound }) == .seconds(16))
        #expect(backoff.delay(afterFailures: 10, retryAfter: nil, random: { $0.upperBound }) == .seconds(60))
        #expect(backoff.delay(afterFailures: 1, retryAfter: .seconds(100), random: { $0.upperBound }) == .seconds(100))
    }

    @Test("more refreshes than the limit within the window fail with excessiveRefresh")
    func excessiveRefreshGuard() async throws {
        try await RefreshFixture.with { fixture in
            let manager = fixture.manager(
                store: InMemoryAuthStore(fixture.seed()), configuration: .init(refreshLimit: 3, refreshWindow: .seconds(30)))
            for _ in 0..<3 { try await manager.refresh() }
            let error = await #expect(throws: TokenAuthError.self) { try await manager.refresh() }
            #expect(error?.code == .excessiveRefresh)
            #expect(fixture.server.stats.refreshGrants == 3)
            fixture.clock.advance(by: 31)
            try await manager.refresh()
            #expect(fixture.server.stats.refreshGrants == 4)
        }
    }

    @Test("a refresh within the leeway that stops at excessiveRefresh serves the token that is still valid")
    func excessiveRefreshServesValidToken() async throws {
        try await RefreshFixture.with { fixture in
            // Every answer's token expires within the leeway (60 s), so each use asks for a refresh.
            fixture.server.updateFaults { $0.expiresInJSON = "30" }
            let manager = fixture.manager(
                store: InMemoryAuthStore(fixture.seed(expiresIn: 4)),  // within the minimum validity: refreshed first
                configuration: .init(refreshLimit: 1, refreshWindow: .seconds(30)))
            let refreshed = try await manager.validToken()
            #expect(fixture.server.stats.refreshGrants == 1)
            // 10 s left of its 30: within the leeway (at most half a token's lifetime), so the next use refreshes
            // beside the caller, and the limit stops it: the token still valid is served all the same.
            fixture.clock.advance(by: 20)
            #expect(try await manager.validToken() == refreshed)
            await manager.refreshBesideEnded()
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }

    @Test("logout during a refresh: the result is discarded, nothing is written back, waiters get loginRequired")
    func logoutDuringRefresh() async throws {
        try await RefreshFixture.with { fixture in
            fixture.server.holdTokenAnswers()
            let store = InMemoryAuthStore(fixture.seed())
            let manager = fixture.manager(store: store)

            let waiter = Task { try await manager.validToken() }
            try await fixture.server.waitForHeldTokenRequests(1)
            // signOut() waits for the refresh under way: release its answer once the sign-out has begun.
            let generation = await manager.sessionGeneration
            let signOut = Task { try await manager.signOut() }
            try await waitUntil("the sign-out to begin") { await manager.sessionGeneration > generation }
            fixture.server.releaseTokenAnswers()
            try await signOut.value

            let result = await waiter.result
            // The server did answer the refresh, after the sign-out: its new tokens were discarded.
            #expect(fixture.server.stats.successfulRefreshes == 1)
            #expect(throws: TokenAuthError.self) { try result.get() }
            #expect((try? result.get()) == nil)
            if case .failure(let error as TokenAuthError) = result { #expect(error.isLoginRequired) }
            #expect(store.current == nil)
            #expect(store.saveCount == 0)
            let after = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(after?.isLoginRequired == true)
        }
    }

    @Test("a sign-in during a refresh wins: waiters get the new session and the refresh result is not stored")
    func signInDuringRefresh() async throws {
        try await RefreshFixture.with { fixture in
            fixture.server.holdTokenAnswers()
            let store = InMemoryAuthStore(fixture.seed())
            let manager = fixture.manager(store: store)

            let waiter = Task { try await manager.validToken() }
            try await fixture.server.waitForHeldTokenRequests(1)
            let fresh = fixture.seed(expiresIn: 3600)
            try await manager.signIn(fresh)
            fixture.server.releaseTokenAnswers()

            #expect(try await waiter.value == fresh.accessToken)
            // The server did answer the refresh, after the sign-in: its new tokens were discarded.
            #expect(fixture.server.stats.successfulRefreshes == 1)
            #expect(store.current == fresh)
            #expect(store.saveCount == 1)
        }
    }

    @Test("a cancelled caller stops waiting; the shared refresh goes on and is persisted for the others")
    func cancellationOfOneWaiter() async throws {
        try await RefreshFixture.with { fixture in
            fixture.server.holdTokenAnswers()
            let store = InMemoryAuthStore(fixture.seed())
            let manager = fixture.manager(store: store)

            let cancelled = Task { try await manager.validToken() }
            let patient = Task { try await manager.validToken() }
            try await fixture.server.waitForHeldTokenRequests(1)
            cancelled.cancel()
            let cancelledResult = await cancelled.result
            #expect(throws: CancellationError.self) { try cancelledResult.get() }
            // The cancelled caller returned while the refresh's answer was still held.
            #expect(fixture.server.stats.successfulRefreshes == 0)
            #expect(store.saveCount == 0)
            fixture.server.releaseTokenAnswers()

            let token = try await patient.value
            #expect(store.current?.accessToken == token)
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }

    @Test("with nothing to refresh and client credentials enabled, a client_credentials grant gets a token")
    func clientCredentialsFallback() async throws {
        try await RefreshFixture.with { fixture in
            let store = InMemoryAuthStore()
            let manager = fixture.manager(store: store, configuration: .init(usesClientCredentials: true))
            let token = try await manager.validToken()
            #expect(store.current?.accessToken == token)
            #expect(fixture.server.stats.clientCredentialsGrants == 1)
            #expect(fixture.server.stats.refreshGrants == 0)
        }
    }

    @Test("events report the refresh, the rotation and the save, and never a token")
    func events() async throws {
        try await RefreshFixture.with { fixture in
            let seeded = fixture.seed()
            let manager = fixture.manager(store: InMemoryAuthStore(seeded))
            let log = EventLog(manager)
            let token = try await manager.validToken()
            let events = try await log.waitFor { $0.contains(.saved) }
            #expect(events == [.refreshStarted, .refreshSucceeded, .refreshTokenRotated, .saved])
            #expect(!"\(events)".contains(token) && !"\(events)".contains(seeded.refreshToken!))
        }
    }
}
