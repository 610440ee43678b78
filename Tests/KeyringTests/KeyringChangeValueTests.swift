@testable import Keyring
import Testing

/// What a change says, and how a subscriber that falls behind is told: plain values, no Secret Service.
@Suite("Keyring changes as values")
struct KeyringChangeValueTests {
    let path = "/org/freedesktop/secrets/collection/login/7"

    @Test("a change or deletion concerns its own item only; a creation or anything concerns every lookup")
    func whatAChangeConcerns() {
        let other = "/org/freedesktop/secrets/collection/login/8"
        for kind in [KeyringChange.Kind.changed, .deleted] {
            #expect(KeyringChange(kind, itemPath: path).mayConcern(itemAt: path))
            #expect(!KeyringChange(kind, itemPath: path).mayConcern(itemAt: other))
            #expect(!KeyringChange(kind, itemPath: path).mayConcern(itemAt: nil))
        }
        #expect(KeyringChange(.created, itemPath: other).mayConcern(itemAt: path))
        #expect(KeyringChange(.created, itemPath: other).mayConcern(itemAt: nil))
        #expect(KeyringChange.anything.mayConcern(itemAt: path))
        #expect(KeyringChange.anything.mayConcern(itemAt: nil))
    }

    @Test("a change without a path is a change of anything, and anything has no path")
    func anythingHasNoPath() {
        #expect(KeyringChange(.deleted, itemPath: nil) == .anything)
        #expect(KeyringChange(.anything, itemPath: path) == .anything)
        #expect(KeyringChange.anything.itemPath == nil)
        #expect("\(KeyringChange(.deleted, itemPath: path))" == "deleted \(path)")
        #expect("\(KeyringChange.anything)" == "anything")
    }

    @Test("a change equal to one not taken yet is not added again; one taken already is")
    func waitingChangesAreFolded() async {
        let (changes, subscription) = Self.subscription()
        var iterator = changes.makeAsyncIterator()
        let changed = KeyringChange(.changed, itemPath: path)
        let deleted = KeyringChange(.deleted, itemPath: path)
        // Each `next()` below finds a change waiting, so none of them waits.
        for change in [changed, changed, deleted, changed] { subscription.give(change) }
        #expect(await iterator.next() == changed)
        #expect(await iterator.next() == deleted)
        #expect(subscription.take() == nil, "a repeat of a change still waiting was added")

        for change in [KeyringChange.anything, deleted, .anything] { subscription.give(change) }
        #expect(await iterator.next() == .anything)
        #expect(await iterator.next() == deleted, "a change after anything is kept: it says which item")
        #expect(subscription.take() == nil)

        subscription.give(changed)
        #expect(await iterator.next() == changed, "a change taken already is given again")

        subscription.end()
        #expect(await iterator.next() == nil)
    }

    @Test("a subscriber that falls behind by more than the limit gets one anything")
    func overflowBecomesAnything() async {
        let (changes, subscription) = Self.subscription()
        for index in 0...ChangeFanOut.bufferLimit {
            subscription.give(KeyringChange(.changed, itemPath: "/item/\(index)"))
        }
        subscription.end()
        #expect(await Array(changes) == [.anything])
    }

    @Test("a subscriber that keeps within the limit gets every change in the order it came")
    func changesWithinTheLimitAreExact() async {
        let (changes, subscription) = Self.subscription()
        let sent = (0..<ChangeFanOut.bufferLimit).map { KeyringChange(.deleted, itemPath: "/item/\($0)") }
        for change in sent { subscription.give(change) }
        subscription.end()
        #expect(await Array(changes) == sent)
    }

    @Test("the sequence ends at once in a cancelled task, even with changes waiting")
    func cancelledTaskEndsTheSequence() async {
        let (changes, subscription) = Self.subscription()
        subscription.give(.anything)
        let consumer = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await Array(changes)
        }
        #expect(await consumer.value == [])
    }

    /// A subscription of the test's own, not registered with the fan-out: no other test's changes reach it.
    private static func subscription() -> (KeyringChanges, ChangeSubscription) {
        let (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let subscription = ChangeSubscription(ring: ring)
        return (KeyringChanges(subscription: subscription, doorbell: doorbell), subscription)
    }
}

extension Array where Element == KeyringChange {
    /// Every change of `changes` until it ends.
    init(_ changes: KeyringChanges) async {
        self = []
        for await change in changes { append(change) }
    }
}
