import Foundation
import TestSupport
import Testing
import TokenAuth
import TokenAuthTesting

/// The session rules that review found broken: a sign-in or sign-out that overtakes a refresh under the lock,
/// a sign-out in another process, first use under load, and tokens that live less than the leeway.
@Suite("AuthManager sessions, with the testing doubles", .timeLimit(.minutes(1)))
struct AuthManagerSessionTests {
    let clock = ManualWallClock()
    /// Made by the lock itself, in a directory of the test's own that goes with the test.
    let temporary: TemporaryDirectory
    var lockDirectory: URL { temporary.url.appendingPathComponent("locks") }

    init() throws { temporary = try TemporaryDirectory() }

    var lock: FileRefreshLock { FileRefreshLock(service: "session.example", account: "ada", directory: lockDirectory) }

    func auth(_ name: String, expiresIn seconds: TimeInterval) -> Auth {
        Auth(accessToken: "access-\(name)", refreshToken: "refresh-\(name)", expiresAt: clock.now.addingTimeInterval(seconds))
    }

    func manager(_ store: ControlledAuthStore, _ endpoint: ScriptedTokenEndpoint, locked: Bool = true) -> AuthManager {
        AuthManager(
            store: store, refresher: endpoint, configuration: .init(backoff: Backoff(jitter: false)),
            lock: locked ? lock : nil, wallClock: clock.wallClock, clock: ManualClock(advancingOnSleep: true))
    }

    /// A manager that has loaded `stored` (valid for 100 s), with the clock then moved past its expiry and the
    /// store's reads held: the next refresh stops at its re-read under the lock.
    func loadedThenExpired(_ store: ControlledAuthStore, _ endpoint: ScriptedTokenEndpoint) async throws -> AuthManager {
        let manager = manager(store, endpoint)
        #expect(try await manager.validToken() == store.stored?.accessToken)
        clock.advance(by: 200)
        store.loadGate.close()
        return manager
    }

    @Test("a sign-out that lands while a refresh re-reads the store under the lock is not undone by it")
    func signOutDuringLockedReread() async throws {
        let store = ControlledAuthStore(auth("0", expiresIn: 100))
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        let manager = try await loadedThenExpired(store, endpoint)
        // Another process refreshed meanwhile: the re-read will find its (valid) tokens.
        store.replaceStored(auth("other", expiresIn: 3600))

        let caller = Task { try await manager.validToken() }
        await store.loadGate.waitUntilArrivals(2)
        let signOut = Task { try await manager.signOut() }
        let generation = await manager.sessionGeneration
        try await waitUntil("the sign-out to begin") {
            await manager.sessionGeneration > generation || store.eraseCount > 0
        }
        store.loadGate.open()
        try await signOut.value

        let error = await #expect(throws: TokenAuthError.self) { try await caller.value }
        #expect(error?.isLoginRequired == true)
        let after = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(after?.isLoginRequired == true)
        #expect(store.stored == nil)
        #expect(store.savedBundles.isEmpty)
        #expect(endpoint.grantCount == 0)
    }

    @Test("a sign-in that lands while a refresh re-reads the store under the lock wins over what the re-read finds")
    func signInDuringLockedReread() async throws {
        let store = ControlledAuthStore(auth("0", expiresIn: 100))
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        let manager = try await loadedThenExpired(store, endpoint)
        store.replaceStored(auth("other", expiresIn: 3600))
        let signedIn = auth("signed-in", expiresIn: 3600)

        let caller = Task { try await manager.validToken() }
        await store.loadGate.waitUntilArrivals(2)
        // The sign-in takes the session at once, and writes once the refresh has let go of the lock.
        let generation = await manager.sessionGeneration
        let signIn = Task { try await manager.signIn(signedIn) }
        try await waitUntil("the sign-in to take the session") { await manager.sessionGeneration > generation }
        #expect(store.saveCount == 0, "the refresh holds the lock: the sign-in waits for it")
        store.loadGate.open()
        try await signIn.value

        #expect(try await caller.value == "access-signed-in")
        #expect(try await manager.validToken() == "access-signed-in")
        #expect(store.stored == signedIn)
        #expect(endpoint.grantCount == 0)
    }

    @Test("a refresh that finds, under the lock, that the loaded entry is gone signs out and writes nothing")
    func signedOutInAnotherProcess() async throws {
        let store = ControlledAuthStore(auth("0", expiresIn: 100))
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        let manager = try await loadedThenExpired(store, endpoint)
        store.loadGate.open()
        store.replaceStored(nil)  // another process signed out

        let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(error?.isLoginRequired == true)
        #expect(endpoint.grantCount == 0)
        #expect(store.stored == nil)
        #expect(store.saveCount == 0)
        await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(store.stored == nil)
    }

    @Test("a retried save of refreshed tokens never re-creates an entry that was signed out in another process")
    func retriedSaveAfterSignOutElsewhere() async throws {
        let store = ControlledAuthStore(auth("0", expiresIn: -10))
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        let manager = manager(store, endpoint)
        struct Locked: Error {}
        store.failSaves(with: Locked())
        #expect(try await manager.validToken() == "access-1")  // served, not written

        store.replaceStored(nil)  // another process signed out
        store.failSaves(with: nil)
        let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(error?.isLoginRequired == true)
        #expect(store.stored == nil)
        #expect(store.savedBundles.isEmpty)
    }

    @Test("concurrent first callers share one load of the store")
    func sharedFirstLoad() async throws {
        let store = ControlledAuthStore(auth("0", expiresIn: 3600))
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        let manager = manager(store, endpoint, locked: false)
        store.loadGate.close()

        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await manager.validToken() } }
            await store.loadGate.waitUntilArrivals(1)
            // Give every caller the chance to start its own load, were loads not shared.
            for _ in 0..<100 { await Task.yield() }
            store.loadGate.open()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "access-0", count: 100))
        #expect(store.loadCount == 1)
    }

    @Test("a load that finishes after a sign-in never replaces the signed-in tokens")
    func lateLoad() async throws {
        let store = ControlledAuthStore(auth("stale", expiresIn: 3600))
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        let manager = manager(store, endpoint, locked: false)
        store.loadGate.close()
        let signedIn = auth("signed-in", expiresIn: 3600)

        let caller = Task { try await manager.validToken() }
        await store.loadGate.waitUntilArrivals(1)
        try await manager.signIn(signedIn)
        store.loadGate.open()

        #expect(try await caller.value == "access-signed-in")
        #expect(try await manager.validToken() == "access-signed-in")
        #expect(store.stored == signedIn)
    }

    @Test("a token that lives 30 s is used for its first half and refreshed once, despite a 60 s leeway")
    func shortLivedTokens() async throws {
        let store = ControlledAuthStore(auth("0", expiresIn: -10))
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock, lifetime: 30)
        let manager = manager(store, endpoint, locked: false)
        #expect(manager.configuration.leeway == .seconds(60))

        #expect(try await manager.validToken() == "access-1")
        for _ in 0..<14 {
            clock.advance(by: 1)
            #expect(try await manager.validToken() == "access-1")
        }
        #expect(endpoint.grantCount == 1)
        clock.advance(by: 2)  // 16 s into a 30 s life: less than half is left, more than the minimum (5 s)
        #expect(try await manager.validToken() == "access-1")  // served while the refresh runs beside it
        await manager.refreshBesideEnded()
        #expect(try await manager.validToken() == "access-2")
        #expect(endpoint.grantCount == 2)
    }
}
