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

    // gnome-keyring announces the unlock of a collection that holds no item with CollectionChanged alone, which was
    // taken for no change: an app that showed "locked" (AuthSession's states) never learned that it could go on.
    @Test("an unlock is announced, even of a collection with no item in it: an app showing 'locked' learns of it")
    func unlockIsAnnounced() async throws {
        let first = try await withDefaultCollectionLocked {
            // A reply from the service after its lock: whatever the lock announced has reached this process.
            _ = try? await keyring.lookup(["service": TestKeyring.uniqueService()])
            let changes = try await keyring.changes()
            return Task { () -> KeyringChange? in
                for await change in changes { return change }  // ends when the timer below cancels it
                return nil
            }
        }
        let timer = Task {
            try await Task.sleep(for: .seconds(30))  // gives up; never what makes the change happen
            first.cancel()
        }
        defer { timer.cancel() }
        let change = await first.value
        #expect(change != nil, "nothing was announced within 30 s of the unlock")
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
