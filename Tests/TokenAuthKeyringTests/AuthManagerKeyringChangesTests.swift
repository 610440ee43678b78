import Foundation
import Keyring
import KeyringTestSupport
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthKeyring
import TokenAuthURLSession

/// A long-lived process learns from the Secret Service's signals that another process changed its item: its valid
/// token in memory is not handed out again once the item holds another, or none.
@Suite("AuthManager.forKeyringItem follows the item's changes", .needsSecretService)
struct AuthManagerKeyringChangesTests {
    /// Runs `body` with a fresh item of a test's own and a manager for it that has handed out its token once.
    func withManager(
        followsChanges: Bool = true,
        _ body: (KeyringAuthStore, AuthManager, _ first: String, RefreshFixture) async throws -> Void
    ) async throws {
        try await RefreshFixture.with { fixture in
            let store = KeyringAuthStore(
                service: TestKeyring.uniqueService(), account: "alice", client: fixture.client,
                keyring: TestKeyring.keyring)
            try await cleaningUp({ _ = try? await store.erase() }) {
                try await store.save(fixture.seed(expiresIn: 3600))
                let manager = try await AuthManager.forKeyringItem(
                    service: store.service, account: store.account, keyring: TestKeyring.keyring, transport: URLSessionHTTPTransport(),
                    followsChanges: followsChanges, wallClock: fixture.clock.wallClock)
                let first = try await manager.validToken()
                try await body(store, manager, first, fixture)
            }
        }
    }

    @Test("a sign-in elsewhere is handed out on the next use, without waiting for the old token to expire")
    func changedElsewhere() async throws {
        try await withManager { store, manager, first, fixture in
            let other = fixture.seed(expiresIn: 3600)
            try await store.signIn(StoredCredentials(auth: other, client: fixture.client))
            try await waitUntil("the manager hands out the token stored elsewhere") {
                (try? await manager.validToken()) == other.accessToken
            }
            #expect(other.accessToken != first)
            #expect(fixture.server.stats.tokenRequests == 0)
        }
    }

    @Test("a refresh by another process is handed out on the next use: gnome-keyring does not announce it, the lock does")
    func refreshedElsewhere() async throws {
        try await withManager { store, manager, first, fixture in
            let other = try await AuthManager.forKeyringItem(
                service: store.service, account: store.account, keyring: TestKeyring.keyring, transport: URLSessionHTTPTransport(), followsChanges: false,
                wallClock: fixture.clock.wallClock)
            let refreshed = try await other.refresh()
            try await waitUntil("the manager hands out the token another process refreshed") {
                (try? await manager.validToken()) == refreshed.accessToken
            }
            #expect(refreshed.accessToken != first)
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }

    @Test("a deletion by another process (secret-tool clear) ends the session on the next use")
    func deletedElsewhere() async throws {
        try await withManager { store, manager, _, fixture in
            let cleared = try await TestKeyring.secretTool(["clear", "service", store.service, "account", store.account])
            #expect(cleared.status == 0, "\(cleared.stderr)")
            try await waitUntil("the manager ends the session") {
                do {
                    _ = try await manager.validToken()
                    return false
                } catch let error as TokenAuthError {
                    return error.isLoginRequired
                } catch {
                    return false
                }
            }
            #expect(try await store.load() == nil, "nothing wrote the tokens back")
            #expect(fixture.server.stats.tokenRequests == 0)
        }
    }

    @Test("without following changes, the valid token in memory is handed out until it needs a refresh")
    func notFollowing() async throws {
        try await withManager(followsChanges: false) { store, manager, first, fixture in
            try await store.signIn(StoredCredentials(auth: fixture.seed(expiresIn: 3600), client: fixture.client))
            // What the signal would have changed: nothing, here — the read under the lock comes with the next refresh.
            #expect(try await manager.validToken() == first)
        }
    }
}
