import Foundation
import Synchronization
import TestSupport
import Testing
import TokenAuth
import TokenAuthTesting

/// Every rule of ``AuthManager``, proven with the doubles of TokenAuthTesting: counted grants, held answers and
/// held writes instead of timing, a manual wall clock instead of sleeping, and no keyring.
@Suite("AuthManager rules, with the testing doubles", .timeLimit(.minutes(1)))
struct AuthManagerRuleTests {
    let clock = ManualWallClock()

    /// A session whose access token expired ten seconds ago.
    var expired: Auth { Auth(accessToken: "access-0", refreshToken: "refresh-0", expiresAt: clock.now.addingTimeInterval(-10)) }

    func manager(
        _ store: ControlledAuthStore,
        _ endpoint: ScriptedTokenEndpoint,
        lock: (any RefreshLock)? = nil,
        configuration: AuthManager.Configuration = .init(backoff: Backoff(jitter: false))
    ) -> AuthManager {
        AuthManager(
            store: store, refresher: endpoint, configuration: configuration, lock: lock, wallClock: clock.wallClock,
            clock: ManualClock(advancingOnSleep: true))
    }

    /// A store holding ``expired``, an endpoint answering `access-1`, `access-2`…, and a manager over both.
    func parts(
        configuration: AuthManager.Configuration = .init(backoff: Backoff(jitter: false))
    ) -> (ControlledAuthStore, ScriptedTokenEndpoint, AuthManager) {
        let store = ControlledAuthStore(expired)
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        return (store, endpoint, manager(store, endpoint, configuration: configuration))
    }

    @Test("single flight: 200 concurrent callers over an expired token cause one grant and all get its token")
    func singleFlight() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.gate.close()

        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<200 { group.addTask { try await manager.validToken() } }
            await endpoint.waitForGrants(1)
            endpoint.gate.open()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(endpoint.grantCount == 1)
        #expect(Set(tokens) == ["access-1"])
        #expect(tokens.count == 200)
        #expect(store.stored?.accessToken == "access-1", "the one grant's tokens are the ones stored")
    }

    @Test("stale-token check: a rejection of a token that was already replaced refreshes nothing")
    func staleTokenCheck() async throws {
        let (store, endpoint, manager) = parts()

        let fresh = try await manager.refresh(rejecting: "access-0")
        #expect(fresh.accessToken == "access-1")
        let again = try await manager.refresh(rejecting: "access-0")
        #expect(again.accessToken == "access-1")
        #expect(endpoint.grantCount == 1)
        // The current token rejected: that one does refresh.
        #expect(try await manager.refresh(rejecting: "access-1").accessToken == "access-2")
        #expect(endpoint.grantCount == 2)
        #expect(store.stored?.accessToken == "access-2")
    }

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

    @Test("an answer lost in transit is asked for once more at once, with the same refresh token")
    func lostAnswerIsAskedAgain() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.fail(with: TokenAuthError.networkFailure)

        #expect(try await manager.validToken() == "access-2")
        #expect(endpoint.grants == [.refresh(refreshToken: "refresh-0", scope: nil), .refresh(refreshToken: "refresh-0", scope: nil)])
        #expect(store.stored?.refreshToken == "refresh-2")
        #expect(store.stored?.refreshStartedAt == nil)
    }

    @Test("an answer lost twice: the tokens are kept, marked as maybe spent, and the error is transient")
    func answerLostTwice() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.fail(with: TokenAuthError.networkFailure)
        endpoint.fail(with: TokenAuthError.networkFailure)

        let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(error?.isTransient == true)
        #expect(endpoint.grantCount == 2)
        #expect(store.stored?.isSameVersion(as: expired) == true)
        #expect(store.stored?.refreshStartedAt != nil, "status can say the refresh token may have been spent")
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

    @Test("events: every consumer has a stream of its own, and each sees every event")
    func eventsHaveManyConsumers() async throws {
        let (_, _, manager) = parts()
        let (first, second) = (manager.events, manager.events)
        #expect(try await manager.validToken() == "access-1")
        for stream in [first, second] {
            var seen: [AuthEvent] = []
            for await event in stream {
                seen.append(event)
                if event == .saved { break }
            }
            #expect(seen.contains(.refreshStarted) && seen.contains(.refreshSucceeded), "\(seen)")
        }
    }

    @Test("sign-out during a refresh: nothing is written back, and the waiters get loginRequired")
    func signOutDuringRefresh() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.gate.close()

        let caller = Task { try await manager.validToken() }
        await endpoint.waitForGrants(1)
        let generation = await manager.sessionGeneration
        let signOut = Task { try await manager.signOut() }
        // `signOut()` ends the session at once and then waits for the refresh: answer once it has begun.
        try await waitUntil("the sign-out to begin") { await manager.sessionGeneration > generation }
        endpoint.gate.open()
        try await signOut.value
        let error = await #expect(throws: TokenAuthError.self) { try await caller.value }
        #expect(error?.isLoginRequired == true)
        #expect(store.stored == nil)
        #expect(store.savedBundles.isEmpty)
        await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
    }

    @Test("sign-in during a refresh wins: the waiters get the new session, and the refresh result is not stored")
    func signInDuringRefresh() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.gate.close()
        let signedIn = Auth(accessToken: "signed-in", refreshToken: "r-new", expiresAt: clock.now.addingTimeInterval(3600))

        let caller = Task { try await manager.validToken() }
        await endpoint.waitForGrants(1)
        try await manager.signIn(signedIn)
        endpoint.gate.open()

        #expect(try await caller.value == "signed-in")
        #expect(store.savedBundles == [signedIn])
        #expect(try await manager.validToken() == "signed-in")
    }

    @Test("a cancelled caller stops waiting; the shared refresh goes on, is stored and serves the others")
    func cancellation() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.gate.close()

        let cancelled = Task { try await manager.validToken() }
        await endpoint.waitForGrants(1)
        let other = Task { try await manager.validToken() }
        cancelled.cancel()
        // Bounded: were cancellation ignored, the caller would wait for the held grant forever.
        let outcome = await result(of: cancelled, within: .seconds(10))
        #expect(outcome.map { if case .failure(let error) = $0 { error is CancellationError } else { false } } == true)
        #expect(endpoint.answerCount == 0)

        endpoint.gate.open()
        #expect(try await other.value == "access-1")
        #expect(store.stored?.accessToken == "access-1")
        #expect(endpoint.grantCount == 1)
    }

    @Test("backoff: after a transient failure the endpoint is left alone for 1 s, then 2 s, then asked again")
    func backoff() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.fail(with: TokenAuthError.serverError)
        endpoint.fail(with: TokenAuthError.serverError)

        var error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(error?.isTransient == true)
        #expect(error?.retryAfter == .seconds(1))
        clock.advance(by: 0.5)
        error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(error?.isTransient == true)
        #expect(endpoint.grantCount == 1)  // not asked while backing off

        clock.advance(by: 0.6)
        error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(error?.retryAfter == .seconds(2))
        #expect(endpoint.grantCount == 2)

        clock.advance(by: 2.1)
        #expect(try await manager.validToken() == "access-3")
        #expect(endpoint.grantCount == 3)
        #expect(store.stored?.accessToken == "access-3")
    }

    @Test("a permanent rejection is loginRequired, keeps the stored tokens, and never resends the refresh token")
    func permanentRejection() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.fail(with: TokenAuthError.invalidGrant)

        for _ in 0..<3 {
            let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(error?.isLoginRequired == true)
        }
        #expect(endpoint.grantCount == 1)
        #expect(store.eraseCount == 0)
        // Kept, but it says so, and holds no refresh token that any process could send again.
        let kept = try #require(store.stored)
        #expect(kept.accessToken == expired.accessToken)
        #expect(kept.refreshToken == nil)
        #expect(kept.endReason?.contains("invalid_grant") == true)
    }

    @Test("a token endpoint that redirects is misconfigured: not a sign-in, nothing erased even by the erase policy, not retried")
    func misconfiguredEndpoint() async throws {
        let (store, endpoint, manager) = parts(
            configuration: .init(backoff: Backoff(jitter: false), rejectionPolicy: .eraseStoredCredentials))
        endpoint.fail(with: TokenAuthError.redirected("token endpoint", to: "https://elsewhere.example/token", statusCode: 307))

        for _ in 0..<2 {
            let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(error?.isMisconfiguration == true)
            #expect(error?.isLoginRequired == false)
        }
        #expect(endpoint.grantCount == 1)
        #expect(store.eraseCount == 0)
        #expect(store.stored?.isSameVersion(as: expired) == true)
    }

    @Test("across processes: two managers with a real FileRefreshLock over one store make one grant")
    func crossProcess() async throws {
        let temporary = try TemporaryDirectory()
        defer { withExtendedLifetime(temporary) {} }
        let lock = FileRefreshLock(service: "rules.example", account: "ada", directory: temporary.url.appendingPathComponent("locks"))
        let store = ControlledAuthStore(expired)
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        endpoint.gate.close()
        let first = manager(store, endpoint, lock: lock)
        let second = manager(store, endpoint, lock: lock)

        let a = Task { try await first.validToken() }
        await endpoint.waitForGrants(1)
        // The first holds the lock while its grant is held; the second loads the expired tokens and queues on it.
        let b = Task { try await second.validToken() }
        await store.loadGate.waitUntilArrivals(2)
        endpoint.gate.open()

        #expect(try await a.value == "access-1")
        #expect(try await b.value == "access-1")
        #expect(endpoint.grantCount == 1)
        #expect(store.stored?.refreshToken == "refresh-1")
    }
}

/// `task`'s result, or `nil` (and a test failure) when it has none within `limit`: a wait that fails, never hangs.
func result<T: Sendable>(
    of task: Task<T, any Error>,
    within limit: Duration,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> Result<T, any Error>? {
    let first = Mutex<CheckedContinuation<Result<T, any Error>?, Never>?>(nil)
    let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>?, Never>) in
        first.withLock { $0 = continuation }
        let finish: @Sendable (Result<T, any Error>?) -> Void = { value in
            first.withLock { $0.take() }?.resume(returning: value)
        }
        Task { finish(await task.result) }
        Task {
            try? await Task.sleep(for: limit)
            finish(nil)
        }
    }
    if outcome == nil { Issue.record("the task had no result within \(limit)", sourceLocation: sourceLocation) }
    return outcome
}

/// A revoker that counts what it is asked to revoke.
final class CountingRevoker: TokenRevoker {
    private let revoked = Mutex(0)
    var count: Int { revoked.withLock { $0 } }
    func revoke(_ token: String, hint: TokenRevocationClient.TokenTypeHint?) async throws {
        revoked.withLock { $0 += 1 }
    }
}
