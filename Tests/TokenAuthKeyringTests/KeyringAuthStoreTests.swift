import Foundation
import Keyring
import KeyringTestSupport
import Testing
import TokenAuth
import TokenAuthKeyring

/// `KeyringAuthStore` against the private gnome-keyring of `scripts/test`. Every test uses a service of its own.
@Suite("Token bundles in the real keyring", .needsSecretService)
struct KeyringAuthStoreTests {
    let keyring = TestKeyring.keyring

    static let expiry = Date(timeIntervalSince1970: 1_800_000_000)
    static let client = OAuthClient(
        tokenEndpoint: URL(string: "https://auth.example.org/token")!, clientID: "desktop-app", clientSecret: "client-secret-1")
    static let auth = Auth(
        accessToken: "access-1", tokenType: "Bearer", refreshToken: "refresh-1", expiresAt: expiry, scope: "read write")

    /// A store for a fresh service, account "ada", which `body` uses; its items are deleted afterwards, also on failure.
    func withStore<T>(
        account: String = "ada",
        client: OAuthClient? = nil,
        collection: KeyringCollection = .default,
        keyring: Keyring = TestKeyring.keyring,
        function: String = #function,
        _ body: (KeyringAuthStore) async throws -> T
    ) async throws -> T {
        let store = KeyringAuthStore(
            service: TestKeyring.uniqueService(function), account: account, client: client,
            keyring: keyring, collection: collection)
        return try await deletingAfterwards([store.attributes, store.attributes.merging(["extra": "x"]) { $1 }]) {
            try await body(store)
        }
    }

    /// Runs `body`, then deletes the items with exactly these attributes, also when `body` throws.
    private func deletingAfterwards<T>(_ attributeSets: [[String: String]], _ body: () async throws -> T) async throws -> T {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        for attributes in attributeSets { _ = try? await keyring.delete(attributes) }
        return try result.get()
    }

    /// `secret-tool store --label=LABEL service S account A [more…]` with `secret` on standard input.
    func secretToolStore(_ store: KeyringAuthStore, _ secret: String, label: String = "x", more: [String] = []) async throws {
        let result = try await TestKeyring.secretTool(
            ["store", "--label=\(label)", "service", store.service, "account", store.account] + more, stdin: secret)
        try #require(result.status == 0, "secret-tool store failed: \(result.stderr)")
    }

    /// What `secret-tool lookup service S account A` prints.
    func secretToolLookup(_ store: KeyringAuthStore) async throws -> String {
        let result = try await TestKeyring.secretTool(["lookup", "service", store.service, "account", store.account])
        return result.stdout
    }

    /// The items whose attributes are exactly the store's.
    func exactItems(_ store: KeyringAuthStore) async throws -> [KeyringItem] {
        try await keyring.items(matching: store.attributes).filter { $0.hasExactly(store.attributes) }
    }

    // MARK: Round trips

    @Test("a saved bundle loads again, tokens and client alike")
    func roundTrip() async throws {
        try await withStore { store in
            let credentials = StoredCredentials(auth: Self.auth, client: Self.client)
            try await store.save(credentials)
            #expect(try await store.loadCredentials() == credentials)
            #expect(try await store.load() == Self.auth)
        }
    }

    @Test("saving again replaces the bundle in the one item")
    func overwrite() async throws {
        try await withStore(client: Self.client) { store in
            try await store.save(Self.auth)
            let first = try await exactItems(store)
            var renewed = Self.auth
            renewed.accessToken = "access-2"
            renewed.expiresAt = Self.expiry.addingTimeInterval(3600)
            try await store.save(renewed)

            #expect(try await store.load() == renewed)
            let items = try await exactItems(store)
            #expect(items.count == 1)
            #expect(items.map(\.path) == first.map(\.path), "updated in place, not recreated")
        }
    }

    @Test("delete removes the item: nothing loads afterwards, and a second delete reports there was nothing")
    func delete() async throws {
        try await withStore { store in
            try await store.save(StoredCredentials(auth: Self.auth))
            #expect(try await store.delete() == true)
            #expect(try await store.load() == nil)
            #expect(try await exactItems(store).isEmpty)
            #expect(try await store.delete() == false)
        }
    }

    @Test("erase forgets the bundle, and erasing when nothing is stored succeeds")
    func erase() async throws {
        try await withStore { store in
            try await store.save(StoredCredentials(auth: Self.auth))
            try await store.erase()
            #expect(try await store.load() == nil)
            try await store.erase()
        }
    }

    @Test("load when nothing is stored is nil, not an error")
    func loadNothing() async throws {
        try await withStore { store in
            let auth = try await store.load()
            let credentials = try await store.loadCredentials()
            #expect(auth == nil)
            #expect(credentials == nil)
        }
    }

    @Test("accounts(of:) lists the service's accounts, sorted, without another tool's items")
    func accounts() async throws {
        let service = TestKeyring.uniqueService()
        let stores = ["carol", "ada", "bob"].map { KeyringAuthStore(service: service, account: $0, keyring: keyring) }
        let theirs = ["service": service, "account": "zed", "extra": "x"]
        try await deletingAfterwards(stores.map(\.attributes) + [theirs]) {
            for store in stores { try await store.save(StoredCredentials(auth: Self.auth)) }
            try await keyring.store("theirs", label: "other tool", attributes: theirs)

            let listed = try await KeyringAuthStore.accounts(of: service, keyring: keyring)
            #expect(listed.map { $0.attributes["account"] } == ["ada", "bob", "carol"])
            #expect(listed.map(\.label) == ["ada", "bob", "carol"].map { "OAuth tokens for \($0) on \(service)" })
            #expect(listed.allSatisfy { !$0.isLocked })
        }
    }

    // MARK: Locked keyring

    @Test("in a locked collection load and save throw locked, not nothing-stored, and the item is intact after unlocking")
    func lockedCollection() async throws {
        try await TestKeyring.withCollection(label: "authstore-locked-\(UUID().uuidString.prefix(8))") { collection in
            try await withStore(client: Self.client, collection: collection.keyringCollection) { store in
                try await store.save(Self.auth)
                let before = try await secretToolLookup(store)
                try await TestKeyring.lockWithGDBus(collection.path)

                let loadError = await #expect(throws: KeyringError.self) { try await store.load() }
                #expect(loadError?.code == .locked)
                let loadCredentialsError = await #expect(throws: KeyringError.self) { try await store.loadCredentials() }
                #expect(loadCredentialsError?.code == .locked)
                var newer = Self.auth
                newer.accessToken = "must-not-be-written"
                let saveError = await #expect(throws: KeyringError.self) { try await store.save(newer) }
                #expect(saveError?.code == .locked)
                // The client-keeping save reads first; that read must not turn "locked" into a silent overwrite.
                let clientless = KeyringAuthStore(
                    service: store.service, account: store.account, keyring: keyring, collection: collection.keyringCollection)
                let clientlessError = await #expect(throws: KeyringError.self) { try await clientless.save(newer) }
                #expect(clientlessError?.code == .locked, "\(clientlessError.map { "\($0)" } ?? "")")
                let eraseError = await #expect(throws: KeyringError.self) { try await store.erase() }
                #expect(eraseError?.code == .locked)
                // The read without a task: locked where prompting is disabled; where it is allowed, "use lookup,
                // which prompts" — never "nothing stored".
                let blockingError = await #expect(throws: KeyringError.self) {
                    try await onThreadOfItsOwn { try store.freshTokenBlocking(at: Self.expiry.addingTimeInterval(-3600)) }
                }
                #expect(blockingError?.code == .locked)
                let prompting = Keyring(configuration: .init(timeout: .seconds(10), prompting: .allowed))
                let answer = try await onThreadOfItsOwn { try prompting.lookupBlocking(store.attributes) }
                #expect(answer.needsPrompt, "\(answer)")

                try await TestKeyring.unlockCollection(collection.path)
                #expect(try await store.loadCredentials() == StoredCredentials(auth: Self.auth, client: Self.client))
                #expect(try await secretToolLookup(store) == before)
            }
        }
    }

    // MARK: One item per (service, account)

    @Test("save reconciles duplicates of our item into one, and leaves an item with an extra attribute alone")
    func duplicatesAreReconciled() async throws {
        try await TestKeyring.withCollection(label: "authstore-dup-\(UUID().uuidString.prefix(8))") { other in
            try await withStore { store in
                try await store.save(StoredCredentials(auth: Auth(accessToken: "in-default")))
                let copy = try await TestKeyring.secretTool(
                    ["store", "--label=copy", "--collection=\(other.path)", "service", store.service, "account", "ada"],
                    stdin: #"{"version":1,"access_token":"in-other"}"#)
                try #require(copy.status == 0, "secret-tool store failed: \(copy.stderr)")
                try await secretToolStore(store, "theirs", label: "other tool", more: ["extra", "x"])
                try #require(try await exactItems(store).count == 2)

                try await store.save(StoredCredentials(auth: Auth(accessToken: "reconciled")))

                let exact = try await exactItems(store)
                #expect(exact.count == 1)
                #expect(try await store.load()?.accessToken == "reconciled")
                let theirs = store.attributes.merging(["extra": "x"]) { $1 }
                let theirItems = try await keyring.items(matching: theirs)
                #expect(theirItems.count == 1)
                #expect(theirItems.first?.label == "other tool")
                #expect(try await keyring.lookup(theirs)?.secret == "theirs")
            }
        }
    }

    @Test("100 concurrent saves of different bundles leave exactly one item holding one of them, and readers never see none")
    func concurrentSaves() async throws {
        try await withStore(client: Self.client, keyring: TestKeyring.patientKeyring) { store in
            let bundles = (0..<100).map { index in
                Auth(accessToken: "access-\(index)", refreshToken: "refresh-\(index)", expiresAt: Self.expiry.addingTimeInterval(Double(index)))
            }
            try await store.save(Auth(accessToken: "initial"))
            let loads = try await withThrowingTaskGroup(of: Auth??.self) { group in
                for auth in bundles {
                    group.addTask { try await store.save(auth); return nil }
                }
                for _ in 0..<20 {
                    group.addTask { .some(try await store.load()) }
                }
                var loads: [Auth?] = []
                for try await result in group { if let load = result { loads.append(load) } }
                return loads
            }

            #expect(loads.count == 20)
            #expect(loads.allSatisfy { $0 != nil }, "a concurrent reader saw no bundle")
            let seen = loads.compactMap { $0?.accessToken }
            #expect(seen.allSatisfy { $0 == "initial" || bundles.map(\.accessToken).contains($0) })

            let items = try await keyring.items(matching: store.attributes)
            #expect(items.count == 1)
            let final = try #require(try await store.loadCredentials())
            #expect(bundles.contains(final.auth))
            #expect(final.client == Self.client)
        }
    }

    struct UnusualTokens: CustomTestStringConvertible, Sendable {
        let name: String
        let account: String
        let auth: Auth
        var testDescription: String { name }
    }

    @Test("non-ASCII and 4 KiB tokens round-trip unchanged", arguments: [
        UnusualTokens(
            name: "non-ASCII", account: "ünïcode 用户",
            auth: Auth(accessToken: "tök€n-鍵-🔑-\"quoted\"\\", refreshToken: "ré-frésh-🔄", scope: "lire écrire")),
        UnusualTokens(
            name: "4 KiB", account: "ada",
            auth: Auth(accessToken: String(repeating: "0123456789abcdef", count: 256), refreshToken: String(repeating: "r", count: 1024))),
    ])
    func unusualTokens(_ unusual: UnusualTokens) async throws {
        try await withStore(account: unusual.account) { store in
            try await store.save(StoredCredentials(auth: unusual.auth))
            #expect(try await store.load() == unusual.auth)
            let printed = try await secretToolLookup(store)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any])
            #expect(json["access_token"] as? String == unusual.auth.accessToken)
        }
    }

    @Test("a bundle over 8 KiB is refused with secretTooLarge, and nothing is written")
    func tooLarge() async throws {
        try await withStore { store in
            let huge = Auth(accessToken: String(repeating: "x", count: Keyring.maximumSecretSize))
            let error = await #expect(throws: KeyringError.self) { try await store.save(StoredCredentials(auth: huge)) }
            #expect(error?.code == .secretTooLarge)
            #expect(try await keyring.items(matching: store.attributes).isEmpty)

            // Over an existing item, the refused save leaves it as it was.
            try await store.save(StoredCredentials(auth: Self.auth))
            let before = try await secretToolLookup(store)
            let again = await #expect(throws: KeyringError.self) { try await store.save(StoredCredentials(auth: huge)) }
            #expect(again?.code == .secretTooLarge)
            #expect(try await secretToolLookup(store) == before)
        }
    }

    @Test("save(auth) by a store without a client keeps the client the item already records")
    func saveKeepsRecordedClient() async throws {
        try await withStore(client: Self.client) { withClient in
            try await withClient.save(Self.auth)
            let clientless = KeyringAuthStore(service: withClient.service, account: withClient.account, keyring: keyring)
            var refreshed = Self.auth
            refreshed.accessToken = "access-after-refresh"
            try await clientless.save(refreshed)

            let credentials = try #require(try await clientless.loadCredentials())
            #expect(credentials.auth == refreshed)
            #expect(credentials.client == Self.client)
        }
    }

    @Test("save(auth) by a store with a client records that client, replacing the previous one")
    func saveRecordsNewClient() async throws {
        try await withStore(client: Self.client) { first in
            try await first.save(Self.auth)
            let newClient = OAuthClient(tokenEndpoint: URL(string: "https://new.example.org/token")!, clientID: "new-app")
            let second = KeyringAuthStore(service: first.service, account: first.account, client: newClient, keyring: keyring)
            try await second.save(Self.auth)
            #expect(try await second.loadCredentials()?.client == newClient)
        }
    }
}
