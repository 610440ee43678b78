import Foundation
import Keyring
import KeyringTestSupport
import Testing
import TokenAuth
import TokenAuthKeyring

/// `KeyringAuthStore.freshTokenBlocking(at:)` and `Keyring.lookupBlocking(_:)`, the read a command-line tool makes on
/// its main thread before any task: the token when the manager would hand it out as stored, `nil` for everything the
/// manager has to do something about. The blocking calls run on a thread of their own here, never on the test's.
@Suite("A fresh token read without a task", .needsSecretService)
struct FreshTokenBlockingTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let client = OAuthClient(tokenEndpoint: URL(string: "https://auth.example.org/token")!, clientID: "desktop-app")

    /// Stores `stored` (the stored JSON format) for a service of the test's own and returns what
    /// `freshTokenBlocking(at: now)` answers, deleting the item afterwards.
    private func freshToken(storing stored: StoredCredentials?, raw: String? = nil, function: String = #function) async throws -> String? {
        let store = KeyringAuthStore(service: TestKeyring.uniqueService(function), account: "ada", keyring: TestKeyring.keyring)
        return try await deletingAfterwards(store.attributes) {
            if let stored { try await store.save(stored) }
            if let raw { try await TestKeyring.keyring.store(raw, label: "x", attributes: store.attributes) }
            return try await onThreadOfItsOwn { try store.freshTokenBlocking(at: Self.now) }
        }
    }

    private func auth(expiresIn seconds: TimeInterval, issuedAgo age: TimeInterval = 3600) -> Auth {
        Auth(
            accessToken: "access-\(Int(seconds))", refreshToken: "refresh-1",
            expiresAt: Self.now.addingTimeInterval(seconds), issuedAt: Self.now.addingTimeInterval(-age))
    }

    @Test("a token valid for longer than the leeway is handed out as stored")
    func fresh() async throws {
        #expect(try await freshToken(storing: StoredCredentials(auth: auth(expiresIn: 3600), client: Self.client)) == "access-3600")
    }

    @Test("nil where the manager must act: nothing stored, inside the leeway, expired, ended, a pending check, unreadable")
    func managerNeeded() async throws {
        #expect(try await freshToken(storing: nil) == nil)
        #expect(try await freshToken(storing: StoredCredentials(auth: auth(expiresIn: 30), client: Self.client)) == nil)
        #expect(try await freshToken(storing: StoredCredentials(auth: auth(expiresIn: -5), client: Self.client)) == nil)
        var ended = auth(expiresIn: 3600)
        ended.endReason = "a refresh answered for another account"
        #expect(try await freshToken(storing: StoredCredentials(auth: ended, client: Self.client)) == nil)
        var pending = auth(expiresIn: 3600)
        pending.identity = Identity(issuer: URL(string: "https://issuer.example")!, subject: "248289761001")
        pending.unverifiedIDToken = "eyJhbGciOiJSUzI1NiJ9.e30.c2ln"
        #expect(try await freshToken(storing: StoredCredentials(auth: pending, client: Self.client)) == nil)
        #expect(try await freshToken(storing: nil, raw: #"{"version":99,"access_token":"x"}"#) == nil)
    }

    @Test("lookupBlocking answers as lookup does: found with the same secret, absent")
    func lookupBlockingMatchesLookup() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await deletingAfterwards(attributes) {
            #expect(try await onThreadOfItsOwn { try TestKeyring.keyring.lookupBlocking(attributes) }.isAbsent)
            try await TestKeyring.keyring.store("the secret", label: "x", attributes: attributes)
            let found = try await onThreadOfItsOwn { try TestKeyring.keyring.lookupBlocking(attributes) }
            let looked = try #require(try await TestKeyring.keyring.lookup(attributes))
            guard case .found(let secret) = found else {
                Issue.record("expected the item, got \(found)")
                return
            }
            #expect(secret.secret == "the secret")
            #expect(secret.path == looked.path)
            // Attributes the provider adds on its own (gnome-keyring's xdg:schema) may appear between two reads.
            let own = { (all: [String: String]) in
                let owned = KeyringItem.providerOwnedAttributes(of: all)
                return all.filter { !owned.contains($0.key) }
            }
            #expect(own(secret.attributes) == attributes)
            #expect(own(looked.attributes) == attributes)
        }
    }

    /// Runs `body`, then deletes the item with exactly `attributes`, also when `body` throws.
    private func deletingAfterwards<T>(_ attributes: [String: String], _ body: () async throws -> T) async throws -> T {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        _ = try? await TestKeyring.keyring.delete(attributes)
        return try result.get()
    }
}

extension Keyring.BlockingLookup {
    var isAbsent: Bool {
        if case .absent = self { return true }
        return false
    }

    var needsPrompt: Bool {
        if case .needsPrompt = self { return true }
        return false
    }
}

/// Runs `body` on a new thread and returns its result: blocking calls stay off the test's (the pool's) threads.
func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
