import Synchronization

/// The changes of keyring items announced to this process from the moment ``Keyring/changes()`` returned, for
/// one consumer: iterate it with `for await`.
///
/// Changes that the consumer has not taken yet are folded together, so that a burst costs one reading, not one per
/// signal (KeePassXC sends about twenty for one write): a change equal to one still waiting is not added again. At
/// most 1,024 different changes wait; one more turns them all into a single ``KeyringChange/anything``. So the sequence
/// never tells *less* than what happened, at worst less precisely, and never holds up the D-Bus connection.
///
/// One task iterates it, like any `AsyncStream`; for several consumers, call ``Keyring/changes()`` once for each.
/// The sequence ends (`nil`) when the task iterating it is cancelled; once it and its iterator are released (a
/// `for await` loop left with `break` or `return`), nothing more is kept for it. It never ends on its own.
public struct KeyringChanges: AsyncSequence, Sendable {
    public typealias Element = KeyringChange

    let subscription: ChangeSubscription
    /// Rung after each change added; its iterator, released or cancelled, ends the subscription.
    let doorbell: AsyncStream<Void>

    public func makeAsyncIterator() -> Iterator {
        Iterator(subscription: subscription, doorbell: doorbell.makeAsyncIterator())
    }

    /// Takes the changes in the order they were announced, waiting for the next one.
    public struct Iterator: AsyncIteratorProtocol {
        let subscription: ChangeSubscription
        var doorbell: AsyncStream<Void>.Iterator

        /// The oldest change not taken yet, waiting for one if there is none; `nil` once the task is cancelled.
        public mutating func next() async -> KeyringChange? {
            while true {
                if Task.isCancelled {
                    subscription.end()
                    return nil
                }
                if let change = subscription.take() { return change }
                // A ring may be for a change already taken: the loop looks again. `nil`: cancelled while waiting.
                guard await doorbell.next() != nil else { return nil }
            }
        }
    }
}

/// The changes waiting for one subscriber of ``ChangeFanOut``, and its doorbell.
///
/// `Sendable` through its `Mutex`; the continuation is `Sendable` and may be used from any thread.
final class ChangeSubscription: Sendable {
    /// At most ``ChangeFanOut/bufferLimit`` different changes, oldest first, and the same as a set.
    private let pending = Mutex<(order: [KeyringChange], members: Set<KeyringChange>)>(([], []))
    private let ring: AsyncStream<Void>.Continuation

    init(ring: AsyncStream<Void>.Continuation) {
        self.ring = ring
    }

    /// Adds `change` unless an equal change is still waiting, and rings. Never blocks: called on GDBus's thread.
    func give(_ change: KeyringChange) {
        let added = pending.withLock { pending in
            if pending.members.contains(change) { return false }
            if pending.order.count >= ChangeFanOut.bufferLimit {
                // Reading everything again covers every change waiting, and this one.
                pending = ([.anything], [.anything])
            } else {
                pending.order.append(change)
                pending.members.insert(change)
            }
            return true
        }
        if added { ring.yield() }
    }

    /// The oldest change waiting, if any.
    func take() -> KeyringChange? {
        pending.withLock { pending in
            guard !pending.order.isEmpty else { return nil }
            let oldest = pending.order.removeFirst()
            pending.members.remove(oldest)
            return oldest
        }
    }

    /// Ends the subscription: the doorbell's termination unregisters it.
    func end() {
        ring.finish()
    }
}
