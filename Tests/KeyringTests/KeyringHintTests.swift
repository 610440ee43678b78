import Foundation
@testable import Keyring
import KeyringTestSupport
import TestSupport
import Testing

/// The hints with which a lookup or a store asks for the item this process found before in its search's batch
/// (`ItemPathHints`): one round trip fewer, counted on the bus, and never a wrong answer from a wrong hint.
@Suite("Keyring's hints: where an item was found before, asked for with the search", .needsSecretService)
struct KeyringHintTests {
    let keyring = TestKeyring.keyring
    let hints = ItemPathHints.ofThisProcess

    // Before the hints: a lookup took two round trips and a store three, every time.
    @Test("a lookup of an item found before takes one round trip, a store two; without a hint two and three")
    func roundTrips() async throws {
        let recorder = BusRecorder()
        try recorder.start()
        defer { recorder.stop() }
        let service = TestKeyring.uniqueService()
        let attributes = ["service": service, "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let stored = try await keyring.store("one", label: "Round trips", attributes: attributes)
            let ours = [service, stored.path]
            #expect(hints.path(for: attributes) == stored.path, "a store remembers where it wrote")

            // Other suites store items in this process meanwhile, and the hints start over at their capacity: say
            // again where the item is, just before each call that is to use it.
            hints.remember(stored.path, for: attributes)
            recorder.reset()
            #expect(try await keyring.lookup(attributes)?.secret == "one")
            #expect(recorder.roundTrips(concerning: ours) == 1, "\(recorder.rounds(concerning: ours))")
            hints.remember(stored.path, for: attributes)
            recorder.reset()
            try await keyring.store("two", label: "Round trips", attributes: attributes)
            #expect(recorder.roundTrips(concerning: ours) == 2, "\(recorder.rounds(concerning: ours))")

            // A process that never met the item: the search first, as libsecret's own lookup does.
            hints.remember(nil, for: attributes)
            recorder.reset()
            #expect(try await keyring.lookup(attributes)?.secret == "two")
            #expect(recorder.roundTrips(concerning: ours) == 2, "\(recorder.rounds(concerning: ours))")
            hints.remember(nil, for: attributes)
            recorder.reset()
            try await keyring.store("three", label: "Round trips", attributes: attributes)
            #expect(recorder.roundTrips(concerning: ours) == 3, "\(recorder.rounds(concerning: ours))")
            #expect(hints.path(for: attributes) == stored.path)
        }
    }

    @Test("a hint at another tool's item (one attribute more) is neither read nor replaced, nor kept from a delete")
    func hintAtAnotherItem() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        let wider = attributes.merging(["tool": "other"]) { $1 }
        try await cleaningUp({
            _ = try? await keyring.delete(wider)
            _ = try? await keyring.delete(attributes)
        }) {
            let theirs = try await keyring.store("theirs", label: "Other tool", attributes: wider)
            hints.remember(theirs.path, for: attributes)
            #expect(try await keyring.lookup(attributes) == nil, "their item is not ours")

            hints.remember(theirs.path, for: attributes)
            let mine = try await keyring.store("mine", label: "Ours", attributes: attributes)
            #expect(mine.path != theirs.path, "a new item, not theirs replaced")
            #expect(try await keyring.lookup(wider)?.secret == "theirs")

            hints.remember(theirs.path, for: attributes)
            #expect(try await keyring.lookup(attributes)?.secret == "mine", "the search found two: both read")
            hints.remember(theirs.path, for: attributes)
            try await keyring.store("mine again", label: "Ours", attributes: attributes)
            #expect(try await keyring.lookup(wider)?.secret == "theirs")
            #expect(try await keyring.delete(attributes) == 1)
            #expect(hints.path(for: attributes) == nil, "a delete forgets")
            #expect(try await keyring.lookup(wider)?.secret == "theirs")
        }
    }

    @Test("a hint at an item that is gone costs nothing but its calls: nothing found, then a new item stored and read")
    func hintAtAGoneItem() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let gone = try await keyring.store("gone", label: "Gone", attributes: attributes)
            // Deleted by another client: this process's hint still points there.
            let cleared = try await runCommand("/usr/bin/secret-tool", ["clear"] + attributes.flatMap { [$0.key, $0.value] })
            try #require(cleared.status == 0, "\(cleared.stderr)")
            // Set again rather than expected: the process's hints start over at 64 sets of attributes, which the
            // tests running beside this one reach (a full run once cleared them between the store and this line).
            hints.remember(gone.path, for: attributes)
            #expect(try await keyring.lookup(attributes) == nil)

            hints.remember(gone.path, for: attributes)
            try await keyring.store("new", label: "New", attributes: attributes)
            hints.remember(gone.path + "0", for: attributes)
            #expect(try await keyring.lookup(attributes)?.secret == "new")
        }
    }
}

/// The recorder's filter: an item's path names that item, not every item whose number starts the same (a whole run
/// once counted `…/login/30`'s calls as those of `…/login/3`).
@Suite("BusRecorder: a call concerns the names it mentions whole")
struct BusRecorderNameTests {
    @Test("a path or service name matches whole, not as the start of a longer one")
    func wholeNames() {
        let path = "/org/freedesktop/secrets/collection/login/3"
        #expect(BusRecorder.text("GetAll \(path) ('org.freedesktop.Secret.Item',)", names: path))
        #expect(BusRecorder.text("GetSecrets /org/freedesktop/secrets (['\(path)'], 's1')", names: path))
        #expect(!BusRecorder.text("GetAll \(path)0 ('org.freedesktop.Secret.Item',)", names: path))
        #expect(BusRecorder.text("GetAll \(path)0 x \(path) y", names: path), "a later whole mention counts")
        #expect(BusRecorder.text("SearchItems ({'service': 'svc.A1'},)", names: "svc.A1"))
        #expect(!BusRecorder.text("SearchItems ({'service': 'svc.A12'},)", names: "svc.A1"))
    }
}
