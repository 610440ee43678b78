import Foundation
import Keyring
import KeyringTestSupport
import TestSupport
import Testing

/// What differs between gnome-keyring, KeePassXC and KWallet, checked on the provider this run started
/// (`TOKENKEYRING_PROVIDER`). Safe to run in parallel with the other storage suites: nothing here locks.
@Suite("Every provider: identity, added attributes, duplicates", .needsSecretService)
struct ProviderStorageTests {
    let keyring = TestKeyring.keyring
    let provider = TestProvider.current

    @Test("the provider owning org.freedesktop.secrets is the one this run names, and diagnose() names it")
    func ownerIsTheNamedProvider() async throws {
        #expect(try await TestProvider.owner() == provider.command)
        let diagnosis = await keyring.diagnose()
        #expect(diagnosis.isUsable, "\(diagnosis)")
        #expect(diagnosis.provider?.name == provider.displayName, "\(diagnosis)")
        #expect(diagnosis.description.contains("is owned by \(provider.displayName) (\(provider.command), pid "))
    }

    @Test("an item we store carries our attributes and the provider's own only, and lookup, replace and delete find it")
    func providerOwnedAttributesAreIgnored() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            try await keyring.store("one", label: "OAuth tokens for ada", attributes: attributes)

            let listed = try await keyring.items(matching: attributes)
            try #require(listed.count == 1)
            let raw = listed[0].attributes
            let owned = KeyringItem.providerOwnedAttributes(of: raw)
            #expect(raw.filter { !owned.contains($0.key) } == attributes)
            switch provider {
            case .keepassxc:
                // KeePassXC's fields are really there: without the provider-owned rule nothing below would be found.
                #expect(Set(["Title", "UserName", "URL", "Notes", "Uuid", "Path"]).isSubset(of: raw.keys), "\(raw)")
                #expect(raw["Title"] == "OAuth tokens for ada")
            case .gnomeKeyring, .kwallet:
                #expect(owned.isSubset(of: [KeyringItem.schemaAttribute]), "\(raw)")
            }

            #expect(try await keyring.lookup(attributes)?.secret == "one")
            let replaced = try await keyring.store("two", label: "OAuth tokens for ada", attributes: attributes)
            #expect(replaced.path == listed[0].path)
            #expect(try await keyring.items(matching: attributes).count == 1)
            #expect(try await keyring.lookup(attributes)?.secret == "two")
            #expect(try await keyring.delete(attributes) == 1)
            #expect(try await keyring.lookup(attributes) == nil)
        }
    }

    @Test("two exact duplicates in the default collection: lookup reads one, the next store leaves exactly one, delete removes all")
    func duplicatesInOneCollection() async throws {
        let service = TestKeyring.uniqueService()
        let attributes = ["service": service, "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            try await provider.createDuplicate(service: service, account: "ada", label: "first", secret: "first")
            try await provider.createDuplicate(service: service, account: "ada", label: "second", secret: "second")
            try #require(try await keyring.items(matching: attributes).count == 2)

            let read = try #require(try await keyring.lookup(attributes))
            #expect(["first", "second"].contains(read.secret))
            try await keyring.store("third", label: "L", attributes: attributes)
            let left = try await keyring.items(matching: attributes)
            #expect(left.count == 1)
            #expect(try await keyring.lookup(attributes)?.secret == "third")

            try await provider.createDuplicate(service: service, account: "ada", label: "again", secret: "again")
            #expect(try await keyring.delete(attributes) == 2)
            #expect(try await keyring.items(matching: attributes).isEmpty)
        }
    }

    @Test("an item with one attribute more than ours, next to the provider's own, is never read, replaced or deleted")
    func extraAttributeIsAnotherTools() async throws {
        let service = TestKeyring.uniqueService()
        let ours = ["service": service, "account": "ada"]
        let theirs = ours.merging(["extra": "x"]) { $1 }
        try await cleaningUp({ _ = try? await keyring.delete(theirs); _ = try? await keyring.delete(ours) }) {
            let stored = try await TestKeyring.secretTool(
                ["store", "--label=other tool", "service", service, "account", "ada", "extra", "x"], stdin: "theirs")
            try #require(stored.status == 0, "secret-tool store failed: \(stored.stderr)")

            #expect(try await keyring.lookup(ours) == nil)
            #expect(try await keyring.delete(ours) == 0)
            try await keyring.store("ours", label: "L", attributes: ours)
            #expect(try await keyring.lookup(theirs)?.secret == "theirs")
            #expect(try await keyring.lookup(ours)?.secret == "ours")
        }
    }
}
