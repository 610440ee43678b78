import Foundation
@testable import Keyring
import KeyringTestSupport
import Synchronization
import TestSupport
import Testing

/// A lookup of an item found before, in a process that has libsecret's service at hand, is awaited by the calling task
/// without a blocking thread (`SecretServiceBackend+HintedLookup.swift`); the replies its batch awaits are taken by a
/// message filter (`DBusReplies`), which lets every other message pass.
@Suite("Keyring's hinted lookups: awaited without a blocking thread", .needsSecretService)
struct KeyringHintedLookupTests {
    let keyring = TestKeyring.keyring
    let hints = ItemPathHints.ofThisProcess

    // Before: every lookup ran on a BlockingCall thread (one `run` each), hinted or not.
    @Test("a lookup of an item found before starts no blocking call, and reads the secret stored last; without a hint it does")
    func hintedLookupStartsNoBlockingCall() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            // The store opens libsecret's service, and remembers where it wrote.
            let stored = try await keyring.store("one", label: "Hinted", attributes: attributes)
            try await keyring.store("two", label: "Hinted", attributes: attributes)
            // Other suites store items in this process meanwhile, and the hints start over at their capacity.
            hints.remember(stored.path, for: attributes)
            let hinted = BlockingCall.Counter()
            let found = try await BlockingCall.$counter.withValue(hinted) { try await keyring.lookup(attributes) }
            #expect(found?.secret == "two")
            #expect(found?.path == stored.path)
            #expect(hinted.value == 0, "a hinted lookup started \(hinted.value) blocking calls")

            hints.remember(nil, for: attributes)
            let unhinted = BlockingCall.Counter()
            let again = try await BlockingCall.$counter.withValue(unhinted) { try await keyring.lookup(attributes) }
            #expect(again?.secret == "two")
            #expect(unhinted.value == 1, "a lookup without a hint runs as a blocking call")
        }
    }

    @Test("a hint at an item that no longer has exactly the attributes falls back to the blocking lookup: nothing found")
    func wrongHintFallsBack() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        let wider = attributes.merging(["tool": "other"]) { $1 }
        try await cleaningUp({ _ = try? await keyring.delete(wider) }) {
            let theirs = try await keyring.store("theirs", label: "Other tool", attributes: wider)
            hints.remember(theirs.path, for: attributes)
            let counter = BlockingCall.Counter()
            let found = try await BlockingCall.$counter.withValue(counter) { try await keyring.lookup(attributes) }
            #expect(found == nil, "their item is not ours")
            #expect(counter.value >= 1, "the blocking lookup decided")
        }
    }

    @Test("changes are announced while hinted lookups run: the filter taking their replies lets signals pass")
    func changesPassWhileLookupsRun() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let item = try await keyring.store("first", label: "L", attributes: attributes)
            let changes = try await keyring.changes()
            let announced = Task {
                for await change in changes where change.kind == .changed && change.itemPath == item.path { return true }
                return false
            }
            let read = Counted()
            let reading = Task {
                while !Task.isCancelled {
                    hints.remember(item.path, for: attributes)
                    do {
                        if try await keyring.lookup(attributes) != nil { read.add() }
                    } catch is CancellationError {
                        break
                    }
                }
            }
            try await waitUntil("hinted lookups running") { read.value >= 3 }
            // A new label too: gnome-keyring announces a label set, but not a secret replaced alone.
            let another = Keyring(configuration: .init(timeout: .seconds(10), prompting: .never))
            try await another.store("second", label: "L2", attributes: attributes)
            let limit = Task {
                try await Task.sleep(for: .seconds(30))  // gives up; never what makes the change happen
                announced.cancel()
            }
            defer { limit.cancel() }
            #expect(await announced.value, "no change announced within 30 s")
            let before = read.value
            try await waitUntil("hinted lookups still running after the change") { read.value > before }
            reading.cancel()
            try await reading.value
        }
    }
}

/// A count shared with a task.
private final class Counted: Sendable {
    private let count = Atomic(0)
    var value: Int { count.load(ordering: .relaxed) }
    func add() { count.add(1, ordering: .relaxed) }
}
