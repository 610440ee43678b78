import Foundation
import Keyring
import KeyringTestSupport
import TestSupport
import Testing

/// Each test locks a collection of its own, so the login collection stays unlocked for the other tests.
@Suite("A locked keyring is reported as locked, never as absent", .needsSecretService)
struct KeyringLockTests {
    let keyring = TestKeyring.keyring

    @Test("lookup and store in a locked collection throw locked, and the item is intact after unlocking")
    func lockedCollection() async throws {
        try await TestKeyring.withCollection(label: "locked-\(UUID().uuidString.prefix(8))") { collection in
            let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
            try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
                try await keyring.store("precious", label: "L", attributes: attributes, in: collection.keyringCollection)
                try await TestKeyring.lockWithGDBus(collection.path)

                // secret-tool cannot tell this apart from "absent": it prints nothing.
                let blind = try await TestKeyring.secretTool(["lookup", "service", attributes["service"]!, "account", "ada"])
                #expect(blind.stdout.isEmpty)

                let lookupError = await #expect(throws: KeyringError.self) { try await keyring.lookup(attributes) }
                #expect(lookupError?.code == .locked)
                let storeError = await #expect(throws: KeyringError.self) {
                    try await keyring.store("clobber", label: "L", attributes: attributes, in: collection.keyringCollection)
                }
                #expect(storeError?.code == .locked)
                let deleteError = await #expect(throws: KeyringError.self) { try await keyring.delete(attributes) }
                #expect(deleteError?.code == .locked)
                let listed = try await keyring.items(matching: attributes)
                #expect(listed.count == 1 && listed.allSatisfy(\.isLocked))

                try await TestKeyring.unlockCollection(collection.path)
                #expect(try await keyring.lookup(attributes)?.secret == "precious")
            }
        }
    }

    @Test("an item read (and remembered) before its collection was locked is reported locked, then read again")
    func rememberedItemInALockedCollection() async throws {
        try await TestKeyring.withCollection(label: "remembered-\(UUID().uuidString.prefix(8))") { collection in
            let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
            try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
                try await keyring.store("precious", label: "L", attributes: attributes, in: collection.keyringCollection)
                for _ in 0..<3 { #expect(try await keyring.lookup(attributes)?.secret == "precious") }
                try await TestKeyring.lockWithGDBus(collection.path)

                let lookupError = await #expect(throws: KeyringError.self) { try await keyring.lookup(attributes) }
                #expect(lookupError?.code == .locked)

                try await TestKeyring.unlockCollection(collection.path)
                #expect(try await keyring.lookup(attributes)?.secret == "precious")
            }
        }
    }

    @Test("a store to the default collection fails with locked while an exact duplicate sits in a locked one")
    func lockedDuplicateBlocksStore() async throws {
        try await TestKeyring.withCollection(label: "lockeddup-\(UUID().uuidString.prefix(8))") { collection in
            let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
            try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
                try await keyring.store("elsewhere", label: "L", attributes: attributes, in: collection.keyringCollection)
                try await keyring.lock(collection.keyringCollection)

                let error = await #expect(throws: KeyringError.self) {
                    try await keyring.store("new", label: "L", attributes: attributes)
                }
                #expect(error?.code == .locked)

                try await TestKeyring.unlockCollection(collection.path)
                #expect(try await keyring.lookup(attributes)?.secret == "elsewhere")
            }
        }
    }

    @Test("with prompting allowed, a prompt that cannot be shown still ends in locked")
    func failedPromptIsLocked() async throws {
        try await TestKeyring.withCollection(label: "prompt-\(UUID().uuidString.prefix(8))") { collection in
            let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
            try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
                try await keyring.store("precious", label: "L", attributes: attributes, in: collection.keyringCollection)
                try await keyring.lock(collection.keyringCollection)

                let prompting = Keyring(configuration: .init(timeout: .seconds(10), prompting: .allowed, promptTimeout: .seconds(20)))
                let error = await #expect(throws: KeyringError.self) { try await prompting.lookup(attributes) }
                #expect(error?.code == .locked)

                try await TestKeyring.unlockCollection(collection.path)
                #expect(try await keyring.lookup(attributes)?.secret == "precious")
            }
        }
    }
}
