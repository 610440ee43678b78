extension Keyring {
    /// The changes of keyring items that the Secret Service announces to this process from now on, for as long as
    /// the returned sequence is kept.
    ///
    /// Subscribe first, then read: the call returns once the session bus sends this process the service's signals,
    /// so every change announced after it returns is delivered, and none made between the read and the loop is lost.
    ///
    /// ```swift
    /// let changes = try await keyring.changes()
    /// var current = try await keyring.lookup(attributes)
    /// for await change in changes where change.mayConcern(itemAt: current?.path) {
    ///     // Best effort: read again before relying on what you hold, whether or not a change came.
    ///     current = try await keyring.lookup(attributes)
    ///     print(current == nil ? "deleted elsewhere" : "changed elsewhere")
    /// }
    /// ```
    ///
    /// It delivers every item created, changed or deleted in any collection, by any process — this one included,
    /// through any `Keyring` value — with its object path, and ``KeyringChange/Kind/anything`` when the service's
    /// bus name changes owner, a collection is created or deleted, or a signal names no item. Each call returns a
    /// subscription of its own; any number may be iterated at once, each by one task.
    ///
    /// Changes not yet taken are folded together (see ``KeyringChanges``), so treat a change as "read again", not as
    /// a count of writes. The subscription ends when the task iterating it is cancelled, and is dropped once it is
    /// released with its iterator (a `for await` loop left with `break` or `return`). It never ends on its own: a
    /// provider that restarts gives ``KeyringChange/Kind/anything``.
    ///
    /// - Important: Delivery is best effort, so correctness must never depend on it. Providers announce what they
    ///   choose to: gnome-keyring (42) says nothing when only an item's secret is replaced (`SetSecret`, what
    ///   ``store(_:label:attributes:in:)`` does to an item whose label is unchanged); KeePassXC 2.7
    ///   sometimes announces a new item before it has a path (``KeyringChange/Kind/anything``); kwalletd5 (KF 5.103)
    ///   changes attributes without a signal. Nothing arrives while the session bus connection is lost. Use the
    ///   changes to learn *early* that an item was changed or deleted, and read the item again before anything that
    ///   must be right.
    ///
    /// The first call in a process connects to the service like any other call, installs a message filter on the
    /// connection and asks the bus daemon for the service's signals (two match rules, one round trip), on a thread
    /// outside Swift's cooperative pool and within ``Configuration/timeout``; later calls send nothing. A process that
    /// never calls it receives no signals and sends no match rules.
    /// - Throws: ``KeyringError`` — `serviceUnavailable` without a Secret Service; `timedOut`; `other` when the bus
    ///   refuses to send the service's signals; `other` in a sandbox, whose keyring file announces nothing;
    ///   `CancellationError` when the task is cancelled.
    public func changes() async throws -> KeyringChanges {
        // Registered before the watch starts: nothing announced after the match rules apply can reach the filter
        // before this subscription is there to take it. On a throw, it is released and so unregistered.
        let changes = ChangeFanOut.subscribe()
        try await logged("watch changes", [:], outcome: { _ in "watching" }) {
            try await backend.watchChanges()
        }
        return changes
    }
}
