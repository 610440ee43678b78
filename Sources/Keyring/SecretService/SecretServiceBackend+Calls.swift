/// How the Secret Service backend runs its blocking operations: bounded by the timeout, waiting for KeePassXC's unlock
/// dialog where it blocks a search, and unlocking what an operation found locked.
extension SecretServiceBackend {
    /// Runs `body` on a blocking thread with a connection to the service, bounded by `timeout`.
    func call<T: Sendable>(
        timeout: Duration? = nil,
        _ body: @escaping @Sendable (SecretServiceCalls) throws -> T
    ) async throws -> T {
        let timeout = timeout ?? configuration.timeout
        return try await BlockingCall.run(timeout: timeout) { cancellable in
            try SecretServiceCalls.with(cancellable, timeout: timeout, body)
        }
    }

    /// ``call(timeout:_:)`` for an operation that searches. `first`, when given, is tried before: its answer, unless
    /// `nil`, is the operation's, and its timeout is the call's.
    ///
    /// KeePassXC, with its default `UnlockBeforeSearch`, answers a search of a locked database only once the user has
    /// closed its unlock dialog. So when the call times out while the default collection says it is locked, the
    /// service is taken to be waiting for that dialog: without prompting that is `locked`; with prompting the call
    /// runs once more with the prompt's time limit, and its timeout says that the keyring may be waiting for the user.
    /// A service that does not answer at all fails the `Locked` question too, and keeps its plain `timedOut`.
    func searchingCall<T: Sendable>(
        first: (() async throws -> T?)? = nil, _ body: @escaping @Sendable (SecretServiceCalls) throws -> T
    ) async throws -> T {
        do {
            if let first, let answer = try await first() { return answer }
            return try await call(body)
        } catch let error as KeyringError where error.code == .timedOut {
            let locked = try? await call { calls in try calls.collection(.default)?.isLocked ?? false }
            guard locked == true else { throw error }
            guard configuration.prompting == .allowed else { throw KeyringError.searchWaitsForUnlock(after: configuration.timeout) }
            let promptTimeout = max(configuration.timeout, configuration.promptTimeout)
            do {
                return try await call(timeout: promptTimeout, body)
            } catch let again as KeyringError where again.code == .timedOut {
                throw KeyringError.timedOutWaitingForUnlock(after: promptTimeout, again.detail)
            }
        }
    }

    /// Throws ``NeedsUnlock`` for the default collection when it is locked: KeePassXC lists no items at all, locked
    /// or not, while its database is locked, so an empty search means "nothing stored" only from an unlocked
    /// default collection. Costs one round trip more, on a miss only.
    static func ensureNothingHidden(_ attributes: [String: String], calls: SecretServiceCalls) throws {
        if let collection = try calls.collection(.default), collection.isLocked {
            throw NeedsUnlock(attributes: attributes, collection: .default)
        }
    }

    /// Runs `operation`; if it meets locked objects, unlocks them (prompting, if allowed) and runs it once more.
    func withUnlocking<T: Sendable>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let needs as NeedsUnlock {
            try await unlock(needs)
            do {
                return try await operation()
            } catch is NeedsUnlock {
                throw KeyringError.locked("still locked after unlocking")
            }
        }
    }

    private func unlock(_ request: NeedsUnlock) async throws {
        guard configuration.prompting == .allowed else {
            throw KeyringError.locked("prompting is disabled")
        }
        let unlocked: Bool
        do {
            unlocked = try await call(timeout: configuration.promptTimeout) { calls in try calls.unlock(request) }
        } catch let error as KeyringError where error.code == .timedOut {
            throw KeyringError.timedOutWaitingForUnlock(after: configuration.promptTimeout, error.detail)
        }
        guard unlocked else { throw KeyringError.locked("the unlock prompt failed or was dismissed") }
    }
}
