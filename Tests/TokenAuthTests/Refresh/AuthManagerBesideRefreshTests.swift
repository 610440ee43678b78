import Foundation
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthTesting

/// Callers are not held by a refresh they do not need: inside the leeway, a token still valid for longer than the
/// minimum validity is handed out at once while the refresh runs beside it, and a store that is locked or does not
/// answer never takes a valid token away.
@Suite("AuthManager's refresh beside the callers", .timeLimit(.minutes(1)))
struct AuthManagerBesideRefreshTests {
    @Test("a token beyond the leeway is not refreshed; inside it, it is served while the refresh runs beside it")
    func leeway() async throws {
        try await RefreshFixture.with { fixture in
            let auth = fixture.seed(expiresIn: 90)
            let store = InMemoryAuthStore(auth)
            let manager = fixture.manager(store: store, configuration: .init(leeway: .seconds(60)))

            #expect(try await manager.validToken() == auth.accessToken)
            await manager.refreshBesideEnded()
            #expect(fixture.server.stats.refreshGrants == 0)

            fixture.clock.advance(by: 31)  // now 59 s left: inside the leeway, valid for more than the minimum (5 s)
            #expect(try await manager.validToken() == auth.accessToken)
            await manager.refreshBesideEnded()
            #expect(fixture.server.stats.refreshGrants == 1)
            let refreshed = try await manager.validToken()
            #expect(refreshed != auth.accessToken)
            #expect(store.current?.accessToken == refreshed)
        }
    }

    /// (minimum validity, seconds left): within the minimum the caller waits for the refresh. A minimum equal to the
    /// leeway waits for every refresh, as a command-line tool needs.
    @Test("a token within the minimum validity is refreshed before the caller gets one", arguments: [(10, 9), (60, 59)])
    func minimumValidity(minimum: Int, left: Int) async throws {
        try await RefreshFixture.with { fixture in
            let auth = fixture.seed(expiresIn: 90)
            let manager = fixture.manager(
                store: InMemoryAuthStore(auth),
                configuration: .init(leeway: .seconds(60), minimumValidity: .seconds(minimum)))
            fixture.clock.advance(by: TimeInterval(90 - left))
            let token = try await manager.validToken()
            #expect(token != auth.accessToken)
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }

    @Test("a slow grant holds no caller while the token is valid: requests keep being served, and it refreshes once")
    func slowGrantHoldsNoCaller() async throws {
        try await RefreshFixture.with { fixture in
            let auth = fixture.seed(expiresIn: 30)
            let manager = fixture.manager(store: InMemoryAuthStore(auth))
            fixture.clock.advance(by: 22)  // 8 s left: inside the 60 s leeway, beyond the minimum (5 s)
            fixture.server.holdTokenAnswers()
            #expect(try await manager.validToken() == auth.accessToken)
            try await fixture.server.waitForHeldTokenRequests(1)
            // The grant is at the server, held: every caller still gets the valid token at once.
            for _ in 0..<20 { #expect(try await manager.validToken() == auth.accessToken) }
            fixture.server.releaseTokenAnswers()
            await manager.refreshBesideEnded()
            #expect(try await manager.validToken() != auth.accessToken)
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }

    /// A store that cannot be read, as a locked keyring is.
    struct LockedStore: Error {}

    func scripted(_ store: ControlledAuthStore, _ endpoint: ScriptedTokenEndpoint, clock: ManualWallClock) -> AuthManager {
        AuthManager(
            store: store, refresher: endpoint, configuration: .init(backoff: Backoff(jitter: false)),
            wallClock: clock.wallClock, clock: ManualClock(advancingOnSleep: true))
    }

    /// A manager on a controlled store and a scripted endpoint, whose token `access-0` (100 s left) it has served once.
    func scriptedSession() async throws -> (ManualWallClock, ControlledAuthStore, ScriptedTokenEndpoint, AuthManager) {
        let clock = ManualWallClock()
        let store = ControlledAuthStore(Auth(
            accessToken: "access-0", refreshToken: "refresh-0", expiresAt: clock.now.addingTimeInterval(100)))
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock, lifetime: 100)
        let manager = scripted(store, endpoint, clock: clock)
        #expect(try await manager.validToken() == "access-0")
        return (clock, store, endpoint, manager)
    }

    @Test("a store that does not answer holds no caller while the token is valid; the refresh lands when it answers")
    func hungStoreHoldsNoCaller() async throws {
        let (clock, store, endpoint, manager) = try await scriptedSession()

        store.loadGate.close()  // the keyring stops answering
        clock.advance(by: 50)  // 50 s left: inside the leeway
        for _ in 0..<20 { #expect(try await manager.validToken() == "access-0") }
        await store.loadGate.waitUntilArrivals(2)  // the first load, then the refresh's re-read, which waits
        #expect(endpoint.grantCount == 0)

        store.loadGate.open()
        await manager.refreshBesideEnded()
        #expect(endpoint.grantCount == 1)
        #expect(try await manager.validToken() == "access-1")
        #expect(store.stored?.accessToken == "access-1")
    }

    @Test("a locked store leaves the valid token to its callers, also within the minimum validity, and is not asked on every call")
    func lockedStoreLeavesValidToken() async throws {
        let (clock, store, endpoint, manager) = try await scriptedSession()
        store.failLoads(with: LockedStore())

        clock.advance(by: 50)  // inside the leeway: served, and the refresh beside it fails
        for _ in 0..<10 { #expect(try await manager.validToken() == "access-0") }
        await manager.refreshBesideEnded()
        // One try, then a backoff: ten calls did not ask the locked store ten times.
        #expect(store.loadCount == 2)

        clock.advance(by: 47)  // 3 s left: within the minimum validity, the caller waits for the refresh, which fails
        #expect(try await manager.validToken() == "access-0")
        #expect(endpoint.grantCount == 0)

        clock.advance(by: 4)  // expired: now the store's error is the caller's
        await #expect(throws: LockedStore.self) { try await manager.validToken() }
    }
}
