extension SecretServiceBackend {
    func lookupBlocking(_ attributes: [String: String]) throws -> Keyring.BlockingLookup {
        do {
            let found = try searchingCallHere { calls in try find(attributes, calls: calls) }
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
            return try BlockingCall.runHere(timeout: configuration.timeout) {
                try SecretServiceCalls.with($0, timeout: configuration.timeout, body)
            }
        } catch let error as KeyringError where error.code == .timedOut {
            let locked = try? BlockingCall.runHere(timeout: configuration.timeout) { cancellable in
                try SecretServiceCalls.with(cancellable, timeout: configuration.timeout) { calls in
                    try calls.collection(.default)?.isLocked ?? false
                }
            }
            guard locked == true else { throw error }
            guard configuration.prompting == .allowed else { throw KeyringError.searchWaitsForUnlock(after: configuration.timeout) }
            throw NeedsUnlock(attributes: [:], collection: .default)
        }
    }
}
