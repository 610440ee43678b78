import Foundation
import Keyring
import KeyringTestSupport
import Testing
import TokenAuth
import TokenAuthKeyring

/// Items tokenctl cannot use: not a bundle, unreadable, or in a locked collection.
extension TokenCtlKeyringTests {
    // MARK: Items tokenctl cannot use

    @Test("an item that is not a bundle makes show exit 65 naming it, and the item survives")
    func corruptItem() async throws {
        try await withService { service in
            let corrupt = #"{"version":1,"access_token":"#
            let stored = try await TestKeyring.secretTool(
                ["store", "--label=broken", "service", service, "account", "ada"], stdin: corrupt)
            try #require(stored.status == 0)

            let shown = try await tokenctl(["show", "--service", service, "--account", "ada"])
            #expect(shown.status == 65)
            #expect(shown.stderr.contains("could not be read"))
            #expect(shown.stderr.contains(service))
            #expect(try await secretToolLookup(service) == corrupt)
        }
    }

    @Test("import over an item that cannot be read replaces it, and says so on stderr; over a readable one it says nothing")
    func importReplacesUnreadableItem() async throws {
        try await withService { service in
            let newer = #"{"version":3,"access_token":"from a newer version"}"#
            let stored = try await TestKeyring.secretTool(
                ["store", "--label=newer", "service", service, "account", "ada"], stdin: newer)
            try #require(stored.status == 0)

            let imported = try await tokenctl(["import", "--service", service, "--account", "ada"], stdin: Self.storedFormat)
            #expect(imported.status == 0)
            #expect(imported.stderr.contains("Replaced the item"))
            #expect(imported.stderr.contains("could not be read"))
            #expect(try await secretToolLookup(service).contains(Self.accessToken))

            let again = try await tokenctl(["import", "--service", service, "--account", "ada"], stdin: Self.storedFormat)
            #expect(again.status == 0)
            #expect(!again.stderr.contains("Replaced"))
            expectNoSecrets([imported, again])
        }
    }

    @Test("an item in a locked collection: show and import exit 4 saying locked, list marks it, and it is intact after unlocking")
    func lockedCollection() async throws {
        try await TestKeyring.withCollection(label: "tokenctl-locked-\(UUID().uuidString.prefix(8))") { collection in
            try await withService { service in
                let item = ["--service", service, "--account", "ada"]
                let store = KeyringAuthStore(service: service, account: "ada", keyring: keyring, collection: collection.keyringCollection)
                try await store.save(try CredentialsImport.parse(Self.storedFormat, receivedAt: Date()))
                let before = try await secretToolLookup(service)
                try await TestKeyring.lockWithGDBus(collection.path)

                // The default: an unlock prompt is tried, cannot be shown headless, and fails.
                let shown = try await tokenctl(["show"] + item)
                #expect(shown.status == 4)
                #expect(shown.stderr.contains("locked"))
                #expect(shown.stdout.isEmpty)
                let noPrompt = try await tokenctl(["show", "--no-prompt"] + item)
                #expect(noPrompt.status == 4)
                #expect(noPrompt.stderr.contains("locked"))
                let imported = try await tokenctl(["import", "--no-prompt"] + item, stdin: #"{"version":1,"access_token":"other"}"#)
                #expect(imported.status == 4, "must not create a second item beside the locked one")
                #expect(imported.stderr.contains("locked"))

                let listed = try await tokenctl(["list", "--service", service, "--json"], environment: ["TOKENCTL_LOG_LEVEL": "trace"])
                #expect(listed.status == 0)
                #expect(try listed.json(as: [[String: Any]].self).map { $0["locked"] as? Bool } == [true], "\(listed.stdout) \(listed.stderr)")

                try await TestKeyring.unlockCollection(collection.path)
                #expect(try await secretToolLookup(service) == before)
                #expect(try await keyring.items(matching: ["service": service, "account": "ada"]).count == 1)
                let after = try await tokenctl(["show", "--json"] + item)
                #expect(after.status == 0)
                #expect(try after.json()["client_id"] as? String == "desktop-app")
            }
        }
    }
}
