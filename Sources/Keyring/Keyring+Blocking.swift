extension Keyring {
    /// What ``lookupBlocking(_:)`` found.
    public enum BlockingLookup: Sendable {
        /// The item whose attributes are exactly the ones asked for.
        case found(KeyringSecret)
        /// No such item.
        case absent
        /// The item, or the collection that would show it, is locked, and prompting is allowed: call ``lookup(_:)``,
        /// which shows the unlock prompt (and waits for it) and looks again. In a sandbox (``usesSandboxKeyring``)
        /// always: there a call is bounded by abandoning its thread, which only ``lookup(_:)`` can.
        case needsPrompt
    }

    /// ``lookup(_:)`` on the calling thread, for a command-line tool's one read at start, before it runs any Swift
    /// task: the call then needs neither Swift's thread pool nor a thread of its own, only the timer's.
    ///
    /// The same calls and answers as ``lookup(_:)``, bounded by the same timeout, except that it shows no prompt:
    /// where ``lookup(_:)`` would prompt, it answers ``BlockingLookup/needsPrompt``.
    ///
    /// - Important: It blocks its thread for up to the timeout. Never call it from a Swift task (an `async`
    ///   function): those threads are the cooperative pool's.
    /// - Throws: ``KeyringError`` — `locked` when prompting is disabled, `serviceUnavailable`, `timedOut`, … as
    ///   ``lookup(_:)`` would.
    public func lookupBlocking(_ attributes: [String: String]) throws -> BlockingLookup {
        try backend.lookupBlocking(attributes)
    }
}
