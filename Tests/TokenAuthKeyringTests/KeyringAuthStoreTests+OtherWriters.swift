import Foundation
import Keyring
import KeyringTestSupport
import Testing
import TokenAuth
import TokenAuthKeyring

/// Items other writers made: `secret-tool`, a hand edit, a newer version of some tool, a concurrent writer.
extension KeyringAuthStoreTests {
    // MARK: Sharing the item with secret-tool

    @Test("an item written by `secret-tool store` in the stored JSON format loads")
    func secretToolJSON() async throws {
        try await withStore { store in
            try await secretToolStore(store, #"""
                {"version":1,"access_token":"from-secret-tool","refresh_token":"r","expires_at":"2027-01-15T08:00:00Z",
                 "token_endpoint":"https://auth.example.org/token","client_id":"cli"}
                """#)
            let credentials = try #require(try await store.loadCredentials())
            #expect(credentials.auth == Auth(accessToken: "from-secret-tool", refreshToken: "r", expiresAt: Self.expiry))
            #expect(credentials.client == OAuthClient(tokenEndpoint: URL(string: "https://auth.example.org/token")!, clientID: "cli"))
        }
    }

    @Test("an item written by `echo TOKEN | secret-tool store` loads as an access token without expiry or refresh token")
    func secretToolPlainToken() async throws {
        try await withStore { store in
            try await secretToolStore(store, "plain-token-42\n")
            let credentials = try #require(try await store.loadCredentials())
            #expect(credentials == StoredCredentials(auth: Auth(accessToken: "plain-token-42")))
        }
    }

    @Test("an item we save is printed by `secret-tool lookup` as our JSON, with exactly service and account and our label")
    func secretToolReadsOurJSON() async throws {
        try await withStore { store in
            try await store.save(StoredCredentials(auth: Self.auth, client: Self.client))

            let printed = try await secretToolLookup(store)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any])
            #expect(json["version"] as? Int == 1)
            #expect(json["access_token"] as? String == "access-1")
            #expect(json["token_type"] as? String == "Bearer")
            #expect(json["refresh_token"] as? String == "refresh-1")
            #expect(json["expires_at"] as? String == "2027-01-15T08:00:00Z")
            #expect(json["scope"] as? String == "read write")
            #expect(json["token_endpoint"] as? String == "https://auth.example.org/token")
            #expect(json["client_id"] as? String == "desktop-app")
            #expect(json["client_secret"] as? String == "client-secret-1")

            let items = try await keyring.items(matching: store.attributes)
            #expect(items.count == 1)
            let item = try #require(items.first)
            let providerOwned = KeyringItem.providerOwnedAttributes(of: item.attributes)
            #expect(item.attributes.filter { !providerOwned.contains($0.key) } == ["service": store.service, "account": "ada"])
            #expect(item.label == "OAuth tokens for ada on \(store.service)")
        }
    }

    // MARK: Unreadable items

    struct Unreadable: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        let code: TokenAuthError.Code
        var testDescription: String { name }
    }

    @Test("an unreadable item fails the load with an error naming it, and is left byte for byte as it was", arguments: [
        Unreadable(name: "corrupt JSON", text: #"{"version":1,"access_token":"half"#, code: .corrupt),
        Unreadable(name: "JSON that is no bundle", text: #"{"hello":"world"}"#, code: .corrupt),
        Unreadable(name: "several lines of text", text: "line one\nline two\n", code: .corrupt),
        Unreadable(name: "a future version", text: #"{"version":3,"access_token":"x"}"#, code: .unsupportedVersion),
    ])
    func unreadableItemSurvives(_ unreadable: Unreadable) async throws {
        try await withStore { store in
            try await secretToolStore(store, unreadable.text)

            let error = await #expect(throws: TokenAuthError.self) { try await store.load() }
            #expect(error?.code == unreadable.code)
            // checks the sentence's help: the item's service and account (two checks).
            #expect(error?.description.contains(store.service) == true)
            #expect(error?.description.contains("ada") == true)
            #expect(try await secretToolLookup(store) == unreadable.text)
        }
    }

    @Test("update (a refresh's write) creates no item, never replaces one it cannot read, nor one another writer changed")
    func updateNeverCreatesNorClobbers() async throws {
        try await withStore(client: Self.client) { store in
            let missing = await #expect(throws: TokenAuthError.self) { try await store.update(Self.auth, replacing: Self.auth) }
            #expect(missing?.code == .missing)
            #expect(try await exactItems(store).isEmpty)

            let unreadable = #"{"version":3,"access_token":"from a newer version"}"#
            try await secretToolStore(store, unreadable)
            let refused = await #expect(throws: TokenAuthError.self) { try await store.update(Self.auth, replacing: Self.auth) }
            #expect(refused?.code == .unsupportedVersion)
            #expect(try await secretToolLookup(store) == unreadable)

            // A sign-in replaces it; a refresh then updates the one item in place.
            try await store.save(Self.auth)
            var refreshed = Self.auth
            refreshed.accessToken = "access-2"
            refreshed.refreshToken = "refresh-2"
            try await store.update(refreshed, replacing: Self.auth)
            #expect(try await store.loadCredentials() == StoredCredentials(auth: refreshed, client: Self.client))
            #expect(try await exactItems(store).count == 1)

            // Another refresh that started from the first version lost: the item keeps the newer one.
            var stale = Self.auth
            stale.accessToken = "access-from-an-older-refresh"
            let superseded = await #expect(throws: TokenAuthError.self) { try await store.update(stale, replacing: Self.auth) }
            #expect(superseded?.code == .superseded)
            #expect(try await store.load()?.accessToken == "access-2")

            // Another writer that takes no lock replaced the tokens with a bare one (as `secret-tool store` would; it
            // is not used here, since KeePassXC leaves its replacing call unanswered): never overwritten by a refresh
            // of the version before.
            try await keyring.store("pasted-by-hand", label: store.label, attributes: store.attributes)
            let pasted = await #expect(throws: TokenAuthError.self) { try await store.update(stale, replacing: refreshed) }
            #expect(pasted?.code == .superseded)
            #expect(try await secretToolLookup(store) == "pasted-by-hand")
        }
    }
}
