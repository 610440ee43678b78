import Synchronization

/// Hands each change the Secret Service's signals announce (``ServiceSignals``) to every subscription of
/// ``Keyring/changes()``.
///
/// The filter tells it on GDBus's worker thread, which every message of the connection waits for, so delivery never
/// blocks: the registry's lock is held only to copy the subscriptions out, and each takes the change under a lock of
/// its own, into a bounded list (``ChangeSubscription/give(_:)``), then rings its doorbell.
enum ChangeFanOut {
    /// How many different changes may wait for a subscriber before they are folded into one `anything`.
    /// Enough for a subscriber whose task is not scheduled for a while during a full test run's churn (a hundred
    /// changes were seen to wait); a waiting change costs about a hundred bytes.
    static let bufferLimit = 1024

    private struct Registry {
        var lastID: UInt64 = 0
        var subscriptions: [UInt64: ChangeSubscription] = [:]
    }

    private static let registry = Mutex(Registry())

    /// Counts the subscriptions made by tasks that bind it (for tests, which run beside other subscribers).
    final class Counter: Sendable {
        private let counts = Mutex((registered: 0, active: 0))

        /// How many subscriptions were made.
        var registered: Int { counts.withLock { $0.registered } }
        /// How many of them are still registered.
        var active: Int { counts.withLock { $0.active } }

        fileprivate func register() { counts.withLock { $0.registered += 1; $0.active += 1 } }
        fileprivate func unregister() { counts.withLock { $0.active -= 1 } }
    }

    @TaskLocal static var counter: Counter?

    /// A new subscription, registered until its doorbell terminates: when its sequence and iterators are released,
    /// or its task is cancelled.
    static func subscribe() -> KeyringChanges {
        let (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let subscription = ChangeSubscription(ring: ring)
        let id = registry.withLock { registry in
            registry.lastID += 1
            return registry.lastID
        }
        let counter = counter
        // Called once, by the stream, never under the registry's lock (`deliver` only gives and rings).
        ring.onTermination = { _ in
            _ = registry.withLock { $0.subscriptions.removeValue(forKey: id) }
            counter?.unregister()
        }
        registry.withLock { $0.subscriptions[id] = subscription }
        counter?.register()
        return KeyringChanges(subscription: subscription, doorbell: doorbell)
    }

    /// Gives `change` to every subscription.
    static func deliver(_ change: KeyringChange) {
        let subscriptions = registry.withLock { Array($0.subscriptions.values) }
        for subscription in subscriptions { subscription.give(change) }
    }
}
