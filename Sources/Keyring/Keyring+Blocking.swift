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
        // In a sandbox a call that misses the portal's answer can only be abandoned, which needs a thread of its
        // own: ``lookup(_:)`` does that, so the caller is sent there, as for a prompt.
        if SandboxKeyring.isActive { return .needsPrompt }
        do {
            let found = try searchingCallHere { calls in try Self.find(attributes, calls: calls) }
            return found.map { .found($0) } ?? .absent
        } catch is NeedsUnlock {
            guard configuration.prompting == .allowed else { throw KeyringError.locked("prompting is disabled") }
            return .needsPrompt
        }
    }

    /// A blocking call on this thread, with what ``lookup(_:)``'s search does when it times out: a locked default
    /// collection means a KeePassXC that waits for its unlock dialog (see `searchingCall`), which only a prompt ends.
    private func searchingCallHere<T>(_ body: (SecretServiceCalls) throws -> T) throws -> T {
        do {
            return try BlockingCall.runHere(timeout: configuration.timeout) { try SecretServiceCalls.with($0, body) }
        } catch let error as KeyringError where error.code == .timedOut {
            let locked = try? BlockingCall.runHere(timeout: configuration.timeout) { cancellable in
                try SecretServiceCalls.with(cancellable) { calls in try calls.collection(.default)?.isLocked ?? false }
            }
            guard locked == true else { throw error }
            guard configuration.prompting == .allowed else { throw searchWaitsForUnlock }
            throw NeedsUnlock(attributes: [:], collection: .default)
        }
    }
}
