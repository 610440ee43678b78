import Foundation
import Keyring
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import Testing
import TokenAuth
@testable import TokenAuthKeyring

@Suite("AuthManager with the real keyring store", .needsSecretService)
struct AuthManagerKeyringTests {
    @Test("1,000 concurrent validToken() calls over an expired keyring item: one refresh grant, all succeed, one item")
    func singleFlightWithKeyring() async throws {
        let fixture = try await RefreshFixture.start()
        defer { Task { await fixture.shutdown() } }
        let store = KeyringAuthStore(service: TestKeyring.uniqueService(), account: "alice", client: fixture.client, keyring: TestKeyring.keyring)
        defer { Task { try? await store.erase() } }
        try await store.save(fixture.seed())
        let manager = fixture.manager(store: store)

        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1000 { group.addTask { try await manager.validToken() } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens.count == 1000)
        #expect(Set(tokens).count == 1)
        #expect(fixture.server.stats.refreshGrants == 1)
        #expect(try await TestKeyring.keyring.items(matching: store.attributes).count == 1)
    }

    @Test("the rotated refresh token is in the keyring by the time a caller gets the new access token")
    func rotationPersistedBeforeRelease() async throws {
        let fixture = try await RefreshFixture.start()
        defer { Task { await fixture.shutdown() } }
        let store = KeyringAuthStore(service: TestKeyring.uniqueService(), account: "alice", client: fixture.client, keyring: TestKeyring.keyring)
        defer { Task { try? await store.erase() } }
        let seeded = fixture.seed()
        try await store.save(seeded)
        let manager = fixture.manager(store: store)

        let auth = try await manager.validAuth()
        let stored = try #require(try await store.loadCredentials())
        #expect(stored.auth == auth)
        #expect(stored.auth.refreshToken != seeded.refreshToken)
        #expect(stored.client == fixture.client)
    }

    @Test("a failed write still serves the token, and the write is retried on the next call: nothing is lost")
    func failedSaveIsRetried() async throws {
        let fixture = try await RefreshFixture.start()
        defer { Task { await fixture.shutdown() } }
        let collection = try await TestKeyring.createCollection(label: "savefail-\(UUID().uuidString.prefix(8))")
        let store = KeyringAuthStore(
            service: TestKeyring.uniqueService(), account: "alice", client: fixture.client,
            keyring: TestKeyring.keyring, collection: collection.keyringCollection)
        defer { Task { try? await store.erase() } }
        let seeded = fixture.seed()
        try await store.save(seeded)
        let manager = fixture.manager(store: store)
        let log = EventLog(manager)
        #expect(try await manager.refresh(rejecting: "unrelated").accessToken != seeded.accessToken)  // loads the item
        let loadedOnce = try #require(try await store.load())

        fixture.clock.advance(by: 7200)  // the refreshed token expires
        try await TestKeyring.lockWithGDBus(collection.path)
        let served = try await manager.validAuth()
        #expect(served.accessToken != loadedOnce.accessToken)
        // The reason is the error's type and code, not its text.
        try await log.waitFor { $0.contains(.saveFailed(reason: "KeyringError.locked")) }

        try await TestKeyring.unlockCollection(collection.path)
        #expect(try await store.load() == loadedOnce, "the keyring still has the previous bundle")
        #expect(try await manager.validAuth() == served)
        #expect(try await store.load() == served, "the next call wrote the new bundle")
        #expect(fixture.server.stats.refreshGrants == 2)
    }
}
