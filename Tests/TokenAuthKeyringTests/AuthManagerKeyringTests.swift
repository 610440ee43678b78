import Foundation
import Keyring
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthSignIn
import TokenAuthTesting
@testable import TokenAuthKeyring
import TokenAuthURLSession

@Suite("AuthManager with the real keyring store", .needsSecretService)
struct AuthManagerKeyringTests {
    @Test("1,000 concurrent validToken() calls over an expired keyring item: one refresh grant, all succeed, one item")
    func singleFlightWithKeyring() async throws {
        try await RefreshFixture.with { fixture in
            let store = KeyringAuthStore(service: TestKeyring.uniqueService(), account: "alice", client: fixture.client, keyring: TestKeyring.keyring)
            try await cleaningUp({ _ = try? await store.erase() }) {
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
        }
    }

    @Test("forKeyringItem checks refreshed id_tokens against the stored identity: same sub adopted, another sub refused")
    func forKeyringItemChecksIdentity() async throws {
        // The server signs id_tokens by the same manual clock the verifier reads.
        let clock = ManualWallClock()
        try await withServer(OAuthTestServer.Configuration(clock: clock.wallClock)) { server in
            let service = TestKeyring.uniqueService()
            let store = KeyringAuthStore(service: service, account: "alice", keyring: TestKeyring.keyring)
            try await cleaningUp({ _ = try? await store.erase() }) {

                // A sign-in with openid, as discovery would record it: the client knows its issuer and keys.
                let client = OAuthClient(
                    tokenEndpoint: server.tokenEndpoint, clientID: "test-client", issuer: server.issuer, jwksURI: server.jwksURI,
                    userinfoEndpoint: server.userinfoEndpoint)
                let response = try await TokenEndpointClient(client: client, transport: URLSessionHTTPTransport(), wallClock: clock.wallClock)
                    .password(username: "alice", password: "wonderland", scope: "openid read")
                let verifier = try #require(IDTokenVerifier(client: client, wallClock: clock.wallClock))
                var auth = response.auth(updating: nil)
                auth.identity = try await verifier.identity(from: response, nonce: nil, userinfoEndpoint: nil)
                auth.expiresAt = clock.now.addingTimeInterval(-10)
                try await store.save(StoredCredentials(auth: auth, client: client))

                // Same account: adopted, and the identity is still in the item.
                let manager = try await AuthManager.forKeyringItem(
                    service: service, account: "alice", keyring: TestKeyring.keyring, transport: URLSessionHTTPTransport(),
                    identityChecks: IDTokenVerifier.forStoredClient, wallClock: clock.wallClock)
                let refreshed = try await manager.validAuth()
                #expect(refreshed.identity == auth.identity)
                let stored = try #require(try await store.loadCredentials())
                #expect(stored.identity == auth.identity)
                #expect(stored.client?.jwksURI == server.jwksURI)

                // Another account on the next refresh: the session ends, and the item says who was signed in and why.
                clock.advance(by: 7200)
                server.updateFaults { $0.idTokenFaults = [.changedSubject] }
                let next = try await AuthManager.forKeyringItem(
                    service: service, account: "alice", keyring: TestKeyring.keyring, transport: URLSessionHTTPTransport(),
                    identityChecks: IDTokenVerifier.forStoredClient, wallClock: clock.wallClock)
                await #expect {
                    _ = try await next.validAuth()
                } throws: { error in
                    (((error as? TokenAuthError)?.underlying as? TokenAuthError)?.underlying as? SignInError)?.code == .subjectChanged
                }
                let ended = try #require(try await store.loadCredentials())
                #expect(ended.auth.endReason?.contains("another account") == true)
                #expect(ended.auth.refreshToken == nil, "the spent refresh token is gone from the item")
                #expect(ended.identity == stored.identity)
                #expect(ended.client == stored.client)
                #expect(server.stats.refreshGrants == 2)
                // Every later process sees the end without sending anything.
                let later = try await AuthManager.forKeyringItem(
                    service: service, account: "alice", keyring: TestKeyring.keyring, transport: URLSessionHTTPTransport(),
                    identityChecks: IDTokenVerifier.forStoredClient, wallClock: clock.wallClock)
                await #expect(throws: TokenAuthError.self) { try await later.validAuth() }
                #expect(server.stats.refreshGrants == 2)
            }
        }
    }

    @Test("the rotated refresh token is in the keyring by the time a caller gets the new access token")
    func rotationPersistedBeforeRelease() async throws {
        try await RefreshFixture.with { fixture in
            let store = KeyringAuthStore(service: TestKeyring.uniqueService(), account: "alice", client: fixture.client, keyring: TestKeyring.keyring)
            try await cleaningUp({ _ = try? await store.erase() }) {
                let seeded = fixture.seed()
                try await store.save(seeded)
                let manager = fixture.manager(store: store)

                let auth = try await manager.validAuth()
                let stored = try #require(try await store.loadCredentials())
                #expect(stored.auth == auth)
                #expect(stored.auth.refreshToken != seeded.refreshToken)
                #expect(stored.client == fixture.client)
            }
        }
    }

    @Test("a write that fails after the refresh still serves the token, and is retried on the next call: nothing is lost")
    func failedSaveIsRetried() async throws {
        try await RefreshFixture.with { fixture in
            try await TestKeyring.withCollection(label: "savefail-\(UUID().uuidString.prefix(8))") { collection in
                let store = KeyringAuthStore(
                    service: TestKeyring.uniqueService(), account: "alice", client: fixture.client,
                    keyring: TestKeyring.keyring, collection: collection.keyringCollection)
                try await cleaningUp({ _ = try? await store.erase() }) {
                    let seeded = fixture.seed()
                    try await store.save(seeded)
                    let manager = fixture.manager(store: store)
                    let log = EventLog(manager)

                    // The keyring locks while the refresh waits for the server: after its read, before its write.
                    fixture.server.holdTokenAnswers()
                    let refresh = Task { try await manager.validAuth() }
                    try await fixture.server.waitForHeldTokenRequests(1)
                    try await TestKeyring.lockWithGDBus(collection.path)
                    fixture.server.releaseTokenAnswers()
                    let served = try await refresh.value
                    #expect(served.accessToken != seeded.accessToken)
                    // The reason is the error's type and code, not its text.
                    try await log.waitFor { $0.contains(.saveFailed(reason: "KeyringError.locked")) }

                    try await TestKeyring.unlockCollection(collection.path)
                    let previous = try #require(try await store.load(), "the keyring still has the previous bundle")
                    #expect(previous.isSameVersion(as: seeded))
                    #expect(previous.refreshStartedAt != nil, "marked before the grant")
                    #expect(try await manager.validAuth() == served)
                    #expect(try await store.load()?.refreshToken == served.refreshToken, "the next call wrote the new bundle")
                    #expect(fixture.server.stats.refreshGrants == 1)
                }
            }
        }
    }

    @Test("a locked keyring at refresh time: nothing is sent, since the newest refresh token cannot be read")
    func lockedBeforeRefresh() async throws {
        try await RefreshFixture.with { fixture in
            try await TestKeyring.withCollection(label: "lockedrefresh-\(UUID().uuidString.prefix(8))") { collection in
                let store = KeyringAuthStore(
                    service: TestKeyring.uniqueService(), account: "alice", client: fixture.client,
                    keyring: TestKeyring.keyring, collection: collection.keyringCollection)
                try await cleaningUp({ _ = try? await store.erase() }) {
                    try await store.save(fixture.seed(expiresIn: 600))
                    let manager = fixture.manager(store: store)
                    _ = try await manager.validToken()
                    fixture.clock.advance(by: 3600)
                    try await TestKeyring.lockWithGDBus(collection.path)

                    let error = await #expect(throws: KeyringError.self) { try await manager.validToken() }
                    #expect(error?.code == .locked)
                    #expect(fixture.server.stats.tokenRequests == 0)
                    try await TestKeyring.unlockCollection(collection.path)
                    _ = try await manager.validToken()
                    #expect(fixture.server.stats.refreshGrants == 1)
                }
            }
        }
    }

    @Test("tokens signed out by another process (the item deleted) are not brought back by a refresh")
    func signOutInAnotherProcess() async throws {
        try await RefreshFixture.with { fixture in
            let service = TestKeyring.uniqueService()
            let store = KeyringAuthStore(service: service, account: "alice", client: fixture.client, keyring: TestKeyring.keyring)
            try await cleaningUp({ _ = try? await store.erase() }) {
                let seeded = fixture.seed(expiresIn: 600)
                try await store.save(seeded)
                let locks = try TemporaryDirectory()
                defer { withExtendedLifetime(locks) {} }
                let lock = FileRefreshLock(service: service, account: "alice", directory: locks.url.appendingPathComponent("locks"))
                let manager = fixture.manager(store: store, lock: lock)
                #expect(try await manager.validToken() == seeded.accessToken)  // process A has loaded the item

                // Process B signs out without revoking (as `tokenctl delete` does): the refresh token stays valid.
                #expect(try await KeyringAuthStore(service: service, account: "alice", keyring: TestKeyring.keyring).delete())
                fixture.clock.advance(by: 3600)

                let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
                #expect(error?.isLoginRequired == true)
                #expect(try await TestKeyring.keyring.items(matching: store.attributes).isEmpty)
                #expect(fixture.server.stats.refreshGrants == 0)
            }
        }
    }

    @Test("an item that became unreadable is never overwritten, nor refreshed from an older refresh token")
    func unreadableItemIsNotOverwritten() async throws {
        try await RefreshFixture.with { fixture in
            let store = KeyringAuthStore(service: TestKeyring.uniqueService(), account: "alice", client: fixture.client, keyring: TestKeyring.keyring)
            try await cleaningUp({ _ = try? await store.erase() }) {
                let seeded = fixture.seed(expiresIn: 600)
                try await store.save(seeded)
                let manager = fixture.manager(store: store)
                #expect(try await manager.validToken() == seeded.accessToken)

                // A newer version of some tool rewrites the item in a format this one cannot read — perhaps with a newer
                // refresh token: the one in memory may be spent, so it is not sent.
                let newer = #"{"version":3,"access_token":"written by a newer version"}"#
                try await TestKeyring.keyring.store(newer, label: store.label, attributes: store.attributes)
                fixture.clock.advance(by: 3600)

                let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
                #expect(error?.code == .unsupportedVersion)
                #expect(fixture.server.stats.tokenRequests == 0)
                #expect(try await TestKeyring.keyring.lookup(store.attributes)?.secret == newer)
            }
        }
    }
}
