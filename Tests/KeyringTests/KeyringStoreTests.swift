import Foundation
@testable import Keyring
import KeyringTestSupport
import TestSupport
import Testing

@Suite("Keyring against a real Secret Service", .needsSecretService)
struct KeyringStoreTests {
    let keyring = TestKeyring.keyring

    @Test("a stored secret is looked up again, as text, from the stored item; the item keeps its label")
    func roundTrip() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let stored = try await keyring.store("s3cret", label: "Round trip", attributes: attributes)

            let found = try #require(try await keyring.lookup(attributes))
            #expect(found.secret == "s3cret")
            #expect(found.path == stored.path)
            // The provider may add its own (gnome-keyring `xdg:schema`, KeePassXC `Title`, `Uuid`…); we never do.
            let providerOwned = KeyringItem.providerOwnedAttributes(of: found.attributes)
            #expect(found.attributes.filter { !providerOwned.contains($0.key) } == attributes)
            #expect(!"\(found)".contains("s3cret"))

            let listed = try await keyring.items(matching: attributes)
            #expect(listed.map(\.path) == [stored.path])
            #expect(listed.first?.label == "Round trip")
            #expect(listed.first?.isLocked == false)
        }
    }

    @Test("a secret that is not UTF-8 text (stored by secret-tool) is notText after every session tried (gnome-keyring keeps such bytes)")
    func binarySecretIsNotText() async throws {
        let service = TestKeyring.uniqueService()
        let attributes = ["service": service, "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let stored = try await runCommand(
                "/bin/sh", ["-c", #"printf '\377\376binary' | secret-tool store --label=binary service "$0" account ada"#, service])
            try #require(stored.status == 0, "\(stored.stderr)")
            if TestProvider.current != .gnomeKeyring {
                // kwalletd5 and KeePassXC keep passwords as text: they turned the bytes into text when stored.
                #expect(try await keyring.lookup(attributes)?.secret.hasSuffix("binary") == true)
                return
            }
            let error = await #expect(throws: KeyringError.self) { try await keyring.lookup(attributes) }
            #expect(error?.code == .notText)
        }
    }

    @Test("storing again replaces the secret in the same item")
    func overwrite() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let first = try await keyring.store("one", label: "L", attributes: attributes)
            let second = try await keyring.store("two", label: "L2", attributes: attributes)

            #expect(first.path == second.path)
            #expect(try await keyring.lookup(attributes)?.secret == "two")
            let items = try await keyring.items(matching: attributes)
            #expect(items.count == 1)
            #expect(items.first?.label == "L2")
        }
    }

    @Test("delete removes the item, and a lookup then finds nothing")
    func delete() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await keyring.store("gone soon", label: "L", attributes: attributes)

        #expect(try await keyring.delete(attributes) == 1)
        #expect(try await keyring.lookup(attributes) == nil)
        #expect(try await keyring.items(matching: attributes).isEmpty)
        #expect(try await keyring.delete(attributes) == 0)
    }

    @Test("items(matching:) lists every account of a service with metadata and no secret")
    func list() async throws {
        let service = TestKeyring.uniqueService()
        try await cleaningUp({ for account in ["a", "b", "c"] { _ = try? await keyring.delete(["service": service, "account": account]) } }) {
            for account in ["a", "b", "c"] {
                try await keyring.store("secret-\(account)", label: "L \(account)", attributes: ["service": service, "account": account])
            }
            let items = try await keyring.items(matching: ["service": service])
            #expect(items.map { $0.attributes["account"] ?? "" }.sorted() == ["a", "b", "c"])
            #expect(items.allSatisfy { !$0.isLocked && $0.modified.timeIntervalSince1970 > 0 })
        }
    }

    @Test("an item written by secret-tool is found: reads do not filter on a schema")
    func secretToolItemIsFound() async throws {
        let service = TestKeyring.uniqueService()
        let attributes = ["service": service, "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let stored = try await TestKeyring.secretTool(
                ["store", "--label=by secret-tool", "service", service, "account", "ada"], stdin: "plain-token")
            try #require(stored.status == 0, "secret-tool store failed: \(stored.stderr)")

            let found = try #require(try await keyring.lookup(attributes))
            #expect(found.secret == "plain-token")
            #expect(try await keyring.items(matching: attributes).map(\.label) == ["by secret-tool"])
        }
    }

    @Test("an item we write is printed by secret-tool lookup")
    func secretToolReadsOurItem() async throws {
        let service = TestKeyring.uniqueService()
        let attributes = ["service": service, "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            try await keyring.store(#"{"a":"ü"}"#, label: "L", attributes: attributes)

            let looked = try await TestKeyring.secretTool(["lookup", "service", service, "account", "ada"])
            #expect(looked.status == 0)
            #expect(looked.stdout == #"{"a":"ü"}"#)
        }
    }

    @Test("an item with one attribute more belongs to another tool: store and delete leave it alone")
    func itemWithExtraAttributeIsUntouched() async throws {
        let service = TestKeyring.uniqueService()
        let attributes = ["service": service, "account": "ada"]
        let theirs = attributes.merging(["extra": "x"]) { $1 }
        try await cleaningUp({ _ = try? await keyring.delete(attributes); _ = try? await keyring.delete(theirs) }) {
            let stored = try await TestKeyring.secretTool(
                ["store", "--label=other tool", "service", service, "account", "ada", "extra", "x"], stdin: "theirs")
            try #require(stored.status == 0)

            #expect(try await keyring.lookup(attributes) == nil)
            try await keyring.store("ours", label: "L", attributes: attributes)
            #expect(try await keyring.lookup(theirs)?.secret == "theirs")
            #expect(try await keyring.lookup(attributes)?.secret == "ours")
            #expect(try await keyring.delete(attributes) == 1)
            #expect(try await keyring.lookup(theirs)?.secret == "theirs")
        }
    }

    @Test("duplicates in another collection are removed by the next store; the newest one is read until then")
    func duplicatesAreReconciled() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            try await TestKeyring.withCollection(label: "dup-\(UUID().uuidString.prefix(8))") { other in
                try await keyring.store("in default", label: "L", attributes: attributes)
                // A second exact item in another collection, written later: the newest wins a lookup.
                try await Task.sleep(for: .seconds(1.1))  // modification times have one-second resolution
                let copied = try await TestKeyring.secretTool(
                    ["store", "--label=copy", "--collection=\(other.path)", "service", attributes["service"]!, "account", "ada"],
                    stdin: "in other")
                try #require(copied.status == 0, "secret-tool store failed: \(copied.stderr)")
                #expect(try await keyring.items(matching: attributes).map(\.collectionPath).sorted()
                    == ["/org/freedesktop/secrets/collection/login", other.path].sorted())
                #expect(try await keyring.lookup(attributes)?.secret == "in other")

                let written = try await keyring.store("final", label: "L", attributes: attributes)
                let items = try await keyring.items(matching: attributes)
                #expect(items.map(\.path) == [written.path])
                #expect(try await keyring.lookup(attributes)?.secret == "final")
            }
        }
    }

    @Test("100 concurrent stores of different secrets leave exactly one item holding one of them")
    func concurrentStores() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let secrets = (0..<100).map { "secret-\($0)" }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for secret in secrets {
                    group.addTask { try await TestKeyring.patientKeyring.store(secret, label: "L", attributes: attributes) }
                }
                try await group.waitForAll()
            }
            #expect(try await keyring.items(matching: attributes).count == 1)
            let secret = try #require(try await keyring.lookup(attributes)?.secret)
            #expect(secrets.contains(secret))
        }
    }

    struct UnusualSecret: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        var testDescription: String { name }
    }

    @Test("non-ASCII text and a 4 KiB secret round-trip unchanged", arguments: [
        UnusualSecret(name: "non-ASCII with an embedded NUL", text: "päss wörd — 鍵 🔑 \u{0}after-nul"),
        UnusualSecret(name: "4 KiB", text: String(repeating: "abcdefgh", count: 512)),
    ])
    func unusualSecrets(secret unusual: UnusualSecret) async throws {
        let secret = unusual.text
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ünïcode 用户"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            try await keyring.store(secret, label: "L", attributes: attributes)
            // KWallet keeps a secret as text up to its first NUL (secret-tool reads the same there).
            let kept = TestProvider.current == .kwallet ? String(secret.prefix { $0 != "\u{0}" }) : secret
            #expect(try await keyring.lookup(attributes)?.secret == kept)
        }
    }

    @Test("a secret over 8 KiB is refused before anything is written")
    func tooLarge() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        let error = await #expect(throws: KeyringError.self) {
            try await keyring.store(String(repeating: "x", count: Keyring.maximumSecretSize + 1), label: "L", attributes: attributes)
        }
        #expect(error?.code == .secretTooLarge)
        #expect(try await keyring.items(matching: attributes).isEmpty)
    }

    /// GDBus drops a call with an invalid object path without ever answering it; such a path once left the
    /// keyring call waiting until its timeout, and its thread blocked for good.
    @Test("a collection path that is no D-Bus object path fails at once, saying so; nothing is written")
    func invalidCollectionPath() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        let lockError = await #expect(throws: KeyringError.self) { try await keyring.lock(.path("login")) }
        #expect(lockError == .notAnObjectPath("login"), "\(String(describing: lockError))")
        let storeError = await #expect(throws: KeyringError.self) {
            try await keyring.store("s", label: "L", attributes: attributes, in: .path("/org/freedesktop/secrets/collection/"))
        }
        #expect(storeError?.code == .noDefaultCollection)
        #expect(try await keyring.items(matching: attributes).isEmpty)
        // A valid path with no collection behind it is "no such collection" too.
        let missing = await #expect(throws: KeyringError.self) {
            try await keyring.lock(.path("/org/freedesktop/secrets/collection/tokenkeyring_no_such_collection"))
        }
        #expect(missing?.code == .noDefaultCollection)
    }
}
