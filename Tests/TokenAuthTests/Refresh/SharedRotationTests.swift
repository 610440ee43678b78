import Foundation
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthTesting
import TokenAuthURLSession

/// Two managers over one store and one lock, as two processes sharing a keyring item, against a server that rotates
/// refresh tokens and revokes the whole family when a retired one comes back (RFC 9700 §4.14). Proven by what the
/// server counts — grants, reuse detections, revocations — and by what the store holds; never by timing.
@Suite("Rotation shared by processes: no rotated refresh token is spent, and writes are ordered")
struct SharedRotationTests {
    /// Made by the lock itself, in a directory of the test's own that goes with the test.
    let temporary: TemporaryDirectory
    var lockDirectory: URL { temporary.url.appendingPathComponent("locks") }

    init() throws { temporary = try TemporaryDirectory() }

    /// A manager of one "process": the shared store, a lock file of the shared directory, and revocation.
    func process(_ fixture: RefreshFixture, _ store: any AuthStore) -> AuthManager {
        AuthManager(
            store: store, refresher: fixture.refresher, configuration: .init(backoff: Backoff(jitter: false)),
            lock: FileRefreshLock(service: "rotation.example", account: "ada", directory: lockDirectory),
            revoker: TokenRevocationClient(
                client: fixture.client, endpoint: fixture.server.revocationEndpoint, transport: URLSessionHTTPTransport()),
            wallClock: fixture.clock.wallClock)
    }

    /// Runs `body` with a fixture, then awaits its server's shutdown, also when `body` throws.
    func withFixture(_ body: (RefreshFixture) async throws -> Void) async throws {
        try await RefreshFixture.with { try await body($0) }
    }

    @Test("a long-lived process whose tokens another process rotated refreshes with the stored refresh token")
    func longLivedProcessAfterRotationElsewhere() async throws {
        try await withFixture { fixture in
            let store = InMemoryAuthStore(fixture.seed(expiresIn: 3600))
            let longLived = process(fixture, store)
            let first = try await longLived.validToken()  // holds RT1 in memory from now on

            _ = try await process(fixture, store).refresh()  // another process: RT1 → RT2
            #expect(fixture.server.stats.refreshGrants == 1)
            fixture.clock.advance(by: 3601)  // every token the long-lived process has seen has expired

            // A request of the long-lived process is rejected, then it needs a token anyway.
            let retried = try await longLived.refresh(rejecting: first)
            #expect(try await longLived.validToken() == retried.accessToken)
            #expect(fixture.server.stats.refreshGrants == 2)
            #expect(fixture.server.stats.successfulRefreshes == 2)
            #expect(fixture.server.stats.reuseDetections == 0)
            #expect(store.current?.accessToken == retried.accessToken)
            // The session is alive for everyone: the resource accepts the token, and another refresh works.
            #expect(try await call(.get, fixture.server.resourceURL, bearer: retried.accessToken).status == 200)
            _ = try await process(fixture, store).refresh()
            #expect(fixture.server.stats.reuseDetections == 0)
        }
    }

    @Test("validAuth of a long-lived process after another's rotation: the stored refresh token, never its own")
    func validAuthAfterRotationElsewhere() async throws {
        try await withFixture { fixture in
            let store = InMemoryAuthStore(fixture.seed(expiresIn: 3600))
            let longLived = process(fixture, store)
            _ = try await longLived.validToken()
            _ = try await process(fixture, store).refresh()
            fixture.clock.advance(by: 3601)

            let token = try await longLived.validToken()
            #expect(token == store.current?.accessToken)
            #expect(fixture.server.stats.refreshGrants == 2)
            #expect(fixture.server.stats.reuseDetections == 0)
        }
    }

    @Test("a 401 for a token that is no longer the stored one uses the stored one while valid, with no grant")
    func rejectedTokenReplacedElsewhere() async throws {
        try await withFixture { fixture in
            let store = InMemoryAuthStore(fixture.seed(expiresIn: 3600))
            let longLived = process(fixture, store)
            let first = try await longLived.validToken()
            let rotated = try await process(fixture, store).refresh()
            fixture.clock.advance(by: 3590)  // the stored token is valid for 10 s more: inside the leeway, not fresh

            let retried = try await longLived.refresh(rejecting: first)
            #expect(retried.accessToken == rotated.accessToken)
            #expect(fixture.server.stats.refreshGrants == 1)
            #expect(fixture.server.stats.reuseDetections == 0)
        }
    }

    @Test("a sign-in during a slow refresh wins: the refresh is ordered before it by the lock")
    func signInDuringSlowRefresh() async throws {
        try await withFixture { fixture in
            let (store, refreshing, refresh) = try await slowRefresh(fixture)

            // Another process signs in as bob while the refresh waits for the server.
            let bob = bobsTokens(fixture)
            try await whileWaitingForTheLock(fixture, process(fixture, store)) { try await $0.signIn(bob) }
            let refreshed = try await refresh.value

            #expect(store.current == bob, "the later sign-in stands")
            // When the server rejects the refreshing process's token, it starts from bob's tokens: no grant.
            #expect(try await refreshing.refresh(rejecting: refreshed) == store.current)
            #expect(fixture.server.stats.refreshGrants == 1)
            #expect(fixture.server.stats.reuseDetections == 0)
        }
    }

    @Test("a writer that takes no lock (secret-tool) during a slow refresh wins, and the refresh's tokens are revoked")
    func unlockedWriterDuringSlowRefresh() async throws {
        try await withFixture { fixture in
            let (store, _, refresh) = try await slowRefresh(fixture)
            let bob = bobsTokens(fixture)
            try await store.save(bob)
            fixture.server.releaseTokenAnswers()

            #expect(try await refresh.value == bob.accessToken, "the refresh's waiters get the tokens that won")
            #expect(store.current == bob)
            #expect(fixture.server.stats.successfulRefreshes == 1)
            #expect(fixture.server.stats.revocationRequests == 2, "the losing refresh's refresh and access tokens")
            #expect(fixture.server.stats.revokedTokens == 1, "revoking the refresh token ended its whole family")
        }
    }

    @Test("a sign-out during a slow refresh stays: the item is not written back")
    func signOutDuringSlowRefresh() async throws {
        try await withFixture { fixture in
            let (store, refreshing, refresh) = try await slowRefresh(fixture)

            try await whileWaitingForTheLock(fixture, process(fixture, store)) { try await $0.signOut() }
            _ = try? await refresh.value

            #expect(store.current == nil)
            fixture.clock.advance(by: 3601)
            let error = await #expect(throws: TokenAuthError.self) { try await refreshing.validToken() }
            #expect(error?.isLoginRequired == true)
            #expect(store.current == nil, "nothing wrote the tokens back")
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }

    @Test("a removal that takes no lock during a slow refresh stays, and the refresh's tokens are revoked")
    func unlockedRemovalDuringSlowRefresh() async throws {
        try await withFixture { fixture in
            let (store, _, refresh) = try await slowRefresh(fixture)
            try await store.erase()
            fixture.server.releaseTokenAnswers()

            let error = await #expect(throws: TokenAuthError.self) { try await refresh.value }
            #expect(error?.isLoginRequired == true)
            #expect(store.current == nil)
            #expect(fixture.server.stats.revocationRequests == 2)
        }
    }

    @Test("with the lock's releases as its store changes, a long-lived process hands out another's refresh at once")
    func releasesTakeTokensOffTheFastPath() async throws {
        try await withFixture { fixture in
            let store = InMemoryAuthStore(fixture.seed(expiresIn: 3600))
            let lock = FileRefreshLock(service: "rotation.example", account: "ada", directory: lockDirectory)
            let longLived = AuthManager(
                store: store, refresher: fixture.refresher, lock: lock, storeChanges: lock.releases(),
                wallClock: fixture.clock.wallClock)
            let first = try await longLived.validToken()

            let refreshed = try await process(fixture, store).refresh()
            try await waitUntil("the long-lived process hands out the other's token") {
                (try? await longLived.validToken()) == refreshed.accessToken
            }
            #expect(refreshed.accessToken != first)
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }

    /// A store of expired tokens, and a process whose refresh of them is held at the server: it holds the lock.
    func slowRefresh(_ fixture: RefreshFixture) async throws -> (InMemoryAuthStore, AuthManager, Task<String, any Error>) {
        let store = InMemoryAuthStore(fixture.seed(expiresIn: -10))
        let refreshing = process(fixture, store)
        fixture.server.holdTokenAnswers()
        let refresh = Task { try await refreshing.validToken() }
        try await fixture.server.waitForHeldTokenRequests(1)
        return (store, refreshing, refresh)
    }

    /// Runs `change` (a sign-in or sign-out) on `manager` of another process: it takes the session at once, then
    /// waits for the lock the held refresh has; the refresh is released once it does, and this returns when
    /// `change` is done.
    func whileWaitingForTheLock(
        _ fixture: RefreshFixture, _ manager: AuthManager, _ change: @escaping @Sendable (AuthManager) async throws -> Void
    ) async throws {
        let generation = await manager.sessionGeneration
        let changing = Task { try await change(manager) }
        try await waitUntil("the change to take the session") { await manager.sessionGeneration > generation }
        fixture.server.releaseTokenAnswers()
        try await changing.value
    }

    /// Tokens the server issued to bob, as a sign-in in another process would store them.
    func bobsTokens(_ fixture: RefreshFixture) -> Auth {
        let issued = fixture.server.issueTokens(clientID: fixture.client.clientID, subject: "bob")
        return Auth(
            accessToken: issued.accessToken, refreshToken: issued.refreshToken,
            expiresAt: fixture.clock.now.addingTimeInterval(3600))
    }
}
