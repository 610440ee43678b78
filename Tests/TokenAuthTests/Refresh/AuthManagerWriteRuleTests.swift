import Foundation
import Testing
import TokenAuth
import TokenAuthTesting

/// Persist before release: no caller has an answer before the store does; a store that fails is tried again, a store
/// that cannot be written spends nothing, and a write that landed although reported failed counts as written.
@Suite("AuthManager rules, with the testing doubles: persist before release", .timeLimit(.minutes(1)))
struct AuthManagerWriteRuleTests: AuthManagerRules {
    let clock = ManualWallClock()

    @Test("persist before release: no caller has the new token before the store has it")
    func persistBeforeRelease() async throws {
        let (store, endpoint, manager) = parts()
        store.saveGate.close()

        // Each caller notes what the store held at the moment it got its token.
        let caller = Task { (token: try await manager.validToken(), storedThen: store.stored?.accessToken) }
        await store.saveGate.waitUntilArrivals(1)
        // The new tokens arrived and their write is held.
        #expect(endpoint.answerCount == 1)
        #expect(store.stored?.accessToken == "access-0")
        let second = Task { (token: try await manager.validToken(), storedThen: store.stored?.accessToken) }
        store.saveGate.open()
        let (first, late) = (try await caller.value, try await second.value)
        #expect(first.token == "access-1" && first.storedThen == "access-1")
        #expect(late.token == "access-1" && late.storedThen == "access-1")
        #expect(store.stored?.accessToken == "access-1")
        #expect(store.stored?.refreshToken == "refresh-1")
        #expect(endpoint.grantCount == 1)
    }

    @Test("a failed save is tried three times, then still serves the new token, off the fast path, and is retried on the next call")
    func failedSaveIsRetried() async throws {
        let (store, endpoint, manager) = parts()
        struct Locked: Error {}
        store.failSaves(with: Locked())

        #expect(try await manager.validToken() == "access-1")
        #expect(store.saveCount == 3, "the write and its two retries")
        #expect(store.stored?.refreshToken == "refresh-0")
        #expect(store.stored?.refreshStartedAt != nil, "the item says its refresh token may have been spent")

        // Still failing: the token is served, and the write is attempted again on every call.
        #expect(try await manager.validToken() == "access-1")
        #expect(store.saveCount == 4)

        store.failSaves(with: nil)
        #expect(try await manager.validToken() == "access-1")
        #expect(store.saveCount == 5)
        #expect(store.stored?.refreshToken == "refresh-1")
        #expect(store.stored?.refreshStartedAt == nil)
        // Written: now a call needs no decision and no write.
        #expect(try await manager.validToken() == "access-1")
        #expect(store.saveCount == 5)
        #expect(endpoint.grantCount == 1)
    }

    @Test("a store that cannot be written fails the call before the grant: nothing is spent")
    func unwritableStoreSpendsNothing() async throws {
        let (store, endpoint, manager) = parts()
        struct Locked: Error {}
        store.failMarks(with: Locked())

        await #expect(throws: Locked.self) { try await manager.validToken() }
        #expect(store.markCount == 1)
        #expect(endpoint.grantCount == 0, "the refresh token was never sent")
        #expect(store.stored == expired)

        store.failMarks(with: nil)
        #expect(try await manager.validToken() == "access-1")
        #expect(endpoint.grantCount == 1)
    }

    @Test("with servesUnstoredTokens off, an answer the store did not take is notStored, never handed out")
    func unstoredAnswerIsAnError() async throws {
        let (store, endpoint, manager) = parts(
            configuration: .init(backoff: Backoff(jitter: false), servesUnstoredTokens: false))
        struct Locked: Error {}
        store.failSaves(with: Locked())

        let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(error?.code == .notStored)
        #expect(error?.underlying is Locked)
        #expect(endpoint.grantCount == 1)
        store.failSaves(with: nil)
        #expect(try await manager.validToken() == "access-1", "written on the next call, not refreshed again")
        #expect(endpoint.grantCount == 1)
        #expect(store.stored?.refreshToken == "refresh-1")
    }

    @Test("a write reported failed that landed counts as written: nothing is revoked or refreshed again")
    func landedWriteIsRecognised() async throws {
        let store = ControlledAuthStore(expired)
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        let revoker = CountingRevoker()
        let manager = AuthManager(
            store: store, refresher: endpoint, configuration: .init(backoff: Backoff(jitter: false)), revoker: revoker,
            wallClock: clock.wallClock, clock: ManualClock(advancingOnSleep: true))
        struct TimedOut: Error {}
        // The write times out but lands, as a keyring call that completed after its caller gave up does.
        store.failSaves(with: TimedOut(), afterStoring: true)

        #expect(try await manager.validToken() == "access-1")
        store.failSaves(with: nil)
        #expect(try await manager.validToken() == "access-1")
        #expect(revoker.count == 0, "the stored answer is this manager's own, not another writer's")
        #expect(endpoint.grantCount == 1)
        #expect(store.stored?.refreshToken == "refresh-1")
    }
}
