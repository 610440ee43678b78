import Foundation
@testable import Keyring
import KeyringTestSupport
import Synchronization
import TestSupport
import Testing

/// `Keyring.changes()` against a real Secret Service: what this process and others do to items is announced to every
/// subscriber, and a subscription that ends is unregistered.
///
/// Other suites run beside this one and change items of their own, so each test waits for a change of *its* item
/// and ignores the rest.
@Suite("Changes announced by the Secret Service", .needsSecretService)
struct KeyringChangeTests {
    let keyring = TestKeyring.keyring

    @Test("a store through another Keyring value is announced as a change of the item")
    func storeThroughAnotherKeyringIsAnnounced() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let item = try await keyring.store("first", label: "L", attributes: attributes)
            let changed = watch(try await keyring.changes()) { $0.kind == .changed && $0.itemPath == item.path }

            // A new label too: gnome-keyring (42) announces a label set, but not a secret replaced alone.
            let another = Keyring(configuration: .init(timeout: .seconds(10), prompting: .never))
            try await another.store("second", label: "L2", attributes: attributes)

            try await found(changed)
        }
    }

    @Test(
        "a store by another process (secret-tool) is announced with the item's path",
        .disabled(
            if: TestProvider.current == .keepassxc,
            "KeePassXC 2.7.4 leaves secret-tool's CreateItem that replaces an item unanswered (secret-tool hangs)"))
    func storeByAnotherProcessIsAnnounced() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let item = try await keyring.store("first", label: "L", attributes: attributes)
            // A `CreateItem` that replaces the item where it is, which gnome-keyring announces as `ItemCreated` of it.
            let stored = watch(try await keyring.changes()) {
                [.created, .changed].contains($0.kind) && $0.itemPath == item.path
            }

            let result = try await TestKeyring.secretTool(
                ["store", "--label", "L", "service", attributes["service"]!, "account", "ada"], stdin: "second")
            #expect(result.status == 0, "secret-tool store failed: \(result.stderr)")

            try await found(stored)
            #expect(try await keyring.lookup(attributes)?.secret == "second")
        }
    }

    @Test("a deletion is announced with the item's path")
    func deletionIsAnnounced() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let item = try await keyring.store("doomed", label: "L", attributes: attributes)
            let deleted = watch(try await keyring.changes()) { $0.kind == .deleted && $0.itemPath == item.path }

            #expect(try await keyring.delete(attributes) == 1)

            try await found(deleted)
        }
    }

    @Test("a deletion by another process (secret-tool clear) is announced with the item's path")
    func deletionByAnotherProcessIsAnnounced() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let item = try await keyring.store("doomed", label: "L", attributes: attributes)
            let deleted = watch(try await keyring.changes()) { $0.kind == .deleted && $0.itemPath == item.path }

            let cleared = try await TestKeyring.secretTool(
                ["clear", "service", attributes["service"]!, "account", "ada"])
            #expect(cleared.status == 0, "secret-tool clear failed: \(cleared.stderr)")

            try await found(deleted)
        }
    }

    @Test("a new item is announced as created, with its path")
    func creationIsAnnounced() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            // The path is known only once the store returns: the changes are taken from now on, and recorded.
            let recording = Recording()
            let watcher = watch(try await keyring.changes()) { recording.record($0) }

            let item = try await keyring.store("new", label: "L", attributes: attributes)

            let created = KeyringChange(.created, itemPath: item.path)
            if recording.want(created) { watcher.cancel() } else { try await found(watcher, "\(created)") }
            #expect(created.mayConcern(itemAt: nil), "a created item may be what a lookup that found nothing looks for")
        }
    }

    @Test("two subscribers both see the same change")
    func everySubscriberSeesTheChange() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let item = try await keyring.store("first", label: "L", attributes: attributes)
            let first = watch(try await keyring.changes()) { $0.kind == .changed && $0.itemPath == item.path }
            let second = watch(try await keyring.changes()) { $0.kind == .changed && $0.itemPath == item.path }

            try await keyring.store("second", label: "L2", attributes: attributes)  // announced by every provider

            try await found(first)
            try await found(second)
        }
    }

    @Test("cancelling the task that iterates a subscription ends its loop and unregisters it")
    func cancelledSubscriptionIsUnregistered() async throws {
        let counter = ChangeFanOut.Counter()
        try await ChangeFanOut.$counter.withValue(counter) {
            let changes = try await keyring.changes()
            #expect(counter.registered == 1)
            #expect(counter.active == 1)

            let consumer = Task {
                for await _ in changes {}
            }
            consumer.cancel()
            await consumer.value  // returns only because the loop ended

            #expect(counter.active == 0)
        }
    }

    @Test("a subscription left with break and released is unregistered, and one whose start fails is never left registered")
    func releasedSubscriptionIsUnregistered() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        let counter = ChangeFanOut.Counter()
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            try await ChangeFanOut.$counter.withValue(counter) {
                try await leaveWithBreak(attributes)
                #expect(counter.registered == 1)
                #expect(counter.active == 0)

                // Cancelled before it starts: `changes()` throws, and its subscription goes with it.
                let cancelled = Task { try await keyring.changes() }
                cancelled.cancel()
                await #expect(throws: CancellationError.self) { _ = try await cancelled.value }
                #expect(counter.registered == 2)
                #expect(counter.active == 0)
            }
        }
    }

    /// Subscribes, stores the item, and leaves the loop over the changes at the first one, which the item's creation
    /// makes sure comes. The sequence and its iterator are released on return.
    private func leaveWithBreak(_ attributes: [String: String]) async throws {
        let changes = try await keyring.changes()
        try await keyring.store("any", label: "L", attributes: attributes)
        let left = Task { () -> Bool in
            for await _ in changes { break }
            return !Task.isCancelled
        }
        let timer = Task {
            try await Task.sleep(for: .seconds(30))  // gives up; never what makes the change happen
            left.cancel()
        }
        defer { timer.cancel() }
        #expect(await left.value, "no change announced within 30 s")
    }

    /// The changes a watch has taken, for a test that can name the change it waits for only later.
    private final class Recording: Sendable {
        private let state = Mutex<(seen: [KeyringChange], wanted: KeyringChange?)>(([], nil))

        /// Records `change`; whether it is the one wanted.
        func record(_ change: KeyringChange) -> Bool {
            state.withLock { state in
                state.seen.append(change)
                return change == state.wanted
            }
        }

        /// Names the change wanted; whether it was recorded already.
        func want(_ change: KeyringChange) -> Bool {
            state.withLock { state in
                state.wanted = change
                return state.seen.contains(change)
            }
        }
    }

    /// What ``watch(_:for:)`` saw: the change it waited for, if it came, and those before it.
    private typealias Watched = (found: KeyringChange?, others: [KeyringChange])

    /// Starts taking `changes` now, until one for which `matches` holds.
    private func watch(
        _ changes: KeyringChanges, for matches: @escaping @Sendable (KeyringChange) -> Bool
    ) -> Task<Watched, Never> {
        Task {
            var others: [KeyringChange] = []
            for await change in changes {  // ends when `found` cancels it
                if matches(change) { return (change, others) }
                others.append(change)
            }
            return (nil, others)
        }
    }

    /// The change `watch` waited for; fails the test after `limit` without it, naming the changes that did come.
    @discardableResult
    private func found(
        _ watch: Task<Watched, Never>, _ wanted: String = "such change", within limit: Duration = .seconds(30),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> KeyringChange {
        let timer = Task {
            try await Task.sleep(for: limit)  // gives up; never what makes the change happen
            watch.cancel()
        }
        defer { timer.cancel() }
        let outcome = await watch.value
        return try #require(
            outcome.found, "no \(wanted) announced within \(limit); others: \(outcome.others.prefix(40))",
            sourceLocation: sourceLocation)
    }
}
