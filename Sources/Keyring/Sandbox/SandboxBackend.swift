import Logging

/// ``Keyring`` in a sandbox (Flatpak, Snap): the same calls on libsecret's file backend (``FileBackendCalls``) — the
/// app's own keyring file, opened with a key from the Secret portal — bounded by the same timeout, with the portal's
/// failures told as what they are (``SandboxFailure``).
///
/// libsecret's calls there cannot be cancelled, so a call is bounded by abandoning its thread (``SandboxCall``). With
/// libsecret older than 0.21.4, a call may miss the Secret portal's answer and wait forever (libsecret issue 58): such
/// a call ends at its timeout and is made once more, since the next one usually gets the answer.
///
/// Its state is ``file``'s, one per process (``AppKeyringFile/ofThisProcess``), as libsecret's file backend is.
struct SandboxBackend: KeyringBackend {
    let configuration: Keyring.Configuration
    let logger: Logger
    /// The app's keyring file, as this process holds it.
    let file: AppKeyringFile

    func items(matching attributes: [String: String]) async throws -> [KeyringItem] {
        try await call("searching") { _ in try FileBackendCalls.search(attributes) }
    }

    func lookup(_ attributes: [String: String]) async throws -> KeyringSecret? {
        try await call("looking up") { _ in try FileBackendCalls.find(attributes) }
    }

    /// Always ``Keyring/BlockingLookup/needsPrompt``: a call that misses the portal's answer can only be abandoned,
    /// which needs a thread of its own, so the caller is sent to ``Keyring/lookup(_:)``, as for a prompt.
    func lookupBlocking(_ attributes: [String: String]) throws -> Keyring.BlockingLookup {
        .needsPrompt
    }

    func store(
        _ secret: String, label: String, attributes: [String: String], in collection: KeyringCollection
    ) async throws -> KeyringItem {
        try await call("storing") { call in
            try FileBackendCalls.store(secret, label: label, attributes: attributes, writer: writer(call))
        }
    }

    func delete(_ attributes: [String: String]) async throws -> Int {
        try await call("deleting") { call in try FileBackendCalls.delete(attributes, writer: writer(call)) }
    }

    func lock(_ collection: KeyringCollection) async throws {
        throw KeyringError.appKeyringCannotLock
    }

    func watchChanges() async throws {
        throw KeyringError.appKeyringAnnouncesNoChanges
    }

    /// How a store or delete writes: see ``AppKeyringFile/write(timeout:call:load:_:)``.
    private func writer(_ call: SandboxCall) -> FileBackendCalls.Writer {
        FileBackendCalls.Writer(timeout: configuration.timeout, call: call)
    }

    /// Runs `body` on a blocking thread, bounded by the timeout by abandoning the thread, and once more when it timed
    /// out or met a write it had not seen (``SandboxFailure/isRetried(_:)``); maps libsecret's failures while `doing`
    /// (“looking up”). A call that began to write is not abandoned (see ``SandboxCall``).
    func call<T: Sendable>(_ doing: String, _ body: @escaping @Sendable (SandboxCall) throws -> T) async throws -> T {
        do {
            return try await attempt(doing, body)
        } catch let error as KeyringError where SandboxFailure.isRetried(error) {
            logger.debug(
                "the sandbox's keyring call is made once more",
                metadata: ["reason": "\(error.code == .timedOut ? "timed out (libsecret < 0.21.4 can miss the portal's answer)" : "another process wrote the file")"])
            return try await attempt(doing, body)
        }
    }

    private func attempt<T: Sendable>(
        _ doing: String, _ body: @escaping @Sendable (SandboxCall) throws -> T
    ) async throws -> T {
        let file = self.file
        let call = SandboxCall(to: file)
        let timeout = configuration.timeout
        // The call's timer starts before the keyring file's lock is waited for, so it ends a call kept waiting there
        // by another instance of the app before the lock's own wait does: it must name the lock, not the portal.
        let timedOut: @Sendable (Duration) -> KeyringError = { after in
            call.waitsForLock ? .appKeyringLockHeld(file.path + ".lock", for: after) : .appKeyringTimedOut(after: after, nil)
        }
        return try await BlockingCall.run(
            timeout: timeout, abandoning: { call.abandonUnlessWriting() }, timedOut: timedOut
        ) { _ in
            // Whatever happens below, the thread ends the call: it gives the turn back, or — abandoned — marks
            // libsecret's backend for dropping by the next call (it may have cached one of its own).
            defer { call.end() }
            guard call.waitForTurn(within: timeout) else {
                throw KeyringError.appKeyringTimedOut(after: timeout, "waiting for this process's other keyring calls")
            }
            try file.prepareCall()
            do {
                return try body(call)
            } catch {
                // libsecret changes its items in memory before it writes the file, and keeps the change when the
                // write fails: the next call drops them, or a later write would save what failed.
                file.markBackendStale()
                if let failure = error as? GLibFailure {
                    throw SandboxFailure(failure.info).error(failure.info, doing: doing, file: file.path)
                }
                throw error
            }
        }
    }
}
