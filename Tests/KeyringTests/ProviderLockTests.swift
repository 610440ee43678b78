import Foundation
import Keyring
import KeyringTestSupport
import TestSupport
import Testing

/// Locks the whole default collection with the provider's own mechanism, so `scripts/test` runs these on their own
/// (`--no-parallel`), after the storage suites, on every provider.
@Suite("Every provider: a locked default collection is locked, never absent", .needsPrivateProvider, .serialized)
struct ProviderLockTests {
    let keyring = TestKeyring.keyring
    let provider = TestProvider.current

    @Test("locked: lookup, store and delete throw locked and change nothing; unlocked again, the item is intact")
    func lockedLoadSaveDelete() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            try await keyring.store("precious", label: "L", attributes: attributes)

            try await withDefaultCollectionLocked {
                let lookup = await #expect(throws: KeyringError.self) { try await keyring.lookup(attributes) }
                #expect(lookup?.code == .locked, "\(String(describing: lookup))")
                let store = await #expect(throws: KeyringError.self) { try await keyring.store("clobber", label: "L", attributes: attributes) }
                #expect(store?.code == .locked, "\(String(describing: store))")
                let delete = await #expect(throws: KeyringError.self) { try await keyring.delete(attributes) }
                #expect(delete?.code == .locked, "\(String(describing: delete))")
                switch provider {
                case .keepassxc:
                    // KeePassXC hides locked items from searches altogether, so an empty list would be a lie.
                    let list = await #expect(throws: KeyringError.self) { try await keyring.items(matching: attributes) }
                    #expect(list?.code == .locked)
                case .gnomeKeyring, .kwallet:
                    let listed = try await keyring.items(matching: attributes)
                    #expect(listed.count == 1 && listed.allSatisfy(\.isLocked))
                }
            }
            #expect(try await keyring.lookup(attributes)?.secret == "precious")
            #expect(try await keyring.items(matching: attributes).count == 1)
        }
    }

    @Test("locked: a lookup of something never stored is locked too, not nil: the service may be hiding it")
    func absentWhileLockedIsLocked() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "nobody"]
        try await withDefaultCollectionLocked {
            let error = await #expect(throws: KeyringError.self) { try await keyring.lookup(attributes) }
            #expect(error?.code == .locked)
            let delete = await #expect(throws: KeyringError.self) { try await keyring.delete(attributes) }
            #expect(delete?.code == .locked)
        }
        #expect(try await keyring.lookup(attributes) == nil)
    }
}
