import CLibSecret

/// A lookup of an item this process found before, awaited by the calling task itself: no blocking thread.
///
/// A hinted lookup costs one round trip (its search, the item's attributes and its secret in one ``DBusBatch``). Run
/// as a ``BlockingCall``, the task also hands the work to a blocking thread and back, and each hand-off waits for a core
/// when one is busy. When the process already has libsecret's service with its session at hand (``OpenService``), the
/// task sends the batch itself and awaits its replies, which GDBus's worker thread delivers (``DBusReplies``): the same
/// connection, the same calls, one hand-off back.
///
/// Only the usual case is read here: the search finds the item at the hint alone, unlocked, with exactly the attributes,
/// and its secret decodes. Anything else (a wrong hint, a locked item, an error reply, a session that does not decode)
/// gives `nil`, and the lookup runs on a blocking thread as without this, which handles every case. A service that did
/// not answer in time, or a connection that closed, is the lookup's error: the blocking path would only meet it again,
/// after as long once more.
///
/// Nothing here blocks the cooperative pool: sending a message only queues it for GDBus's worker thread, which writes it;
/// the replies are awaited on a continuation; reading them and decrypting the secret are CPU work on memory at hand.
extension SecretServiceBackend {
    /// The item with exactly `attributes`, read at its hint; `nil` when this cannot answer (no hint, no service at
    /// hand, anything unusual), and the lookup is then to run as a blocking call.
    /// - Throws: `timedOut` after the configuration's timeout, `CancellationError` when the task is cancelled.
    func hintedLookup(_ attributes: [String: String]) async throws -> KeyringSecret? {
        guard let hint = hints.path(for: attributes), let service = OpenService.current else { return nil }
        // The calls below read libsecret's service through its pointer alone: it must outlive them, whatever
        // `OpenService.forget()` does meanwhile.
        defer { withExtendedLifetime(service) {} }
        let cancellable = BlockingCall.Cancellable()
        let outcome = ResumeOnce<Void>()
        // Started before the batch's own (longer) timer, so that the watchdog thread is woken for neither when its
        // next wake-up is earlier already (see `Deadlines`). The result is settled before the cancellation, whose
        // answering of the batch must not win the race.
        let timeout = configuration.timeout
        let timer = Timeout(after: timeout) {
            if outcome.finish(.failure(KeyringError.timedOut(after: timeout, nil))) { cancellable.cancel() }
        }
        defer { timer.cancel() }
        let calls = SecretServiceCalls(service: service.pointer, cancellable: cancellable.pointer, timeout: timeout)
        // Reads the connection libsecret's service holds, and its bus name: no call.
        guard let batch = try? calls.makeBatch(size: SecretServiceCalls.hintedReadSize) else { return nil }
        // Not blocking: reads the session's path from the service (`getSecretsParameters`) and queues the messages.
        calls.sendHintedRead(attributes, hint: hint, in: batch)
        // Called on GDBus's worker thread with the last reply (or here, if they are all in already); resuming a
        // continuation only schedules the task.
        batch.whenDone { outcome.finish(.success(())) }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { outcome.install($0) }
        } onCancel: {
            if outcome.finish(.failure(CancellationError())) { cancellable.cancel() }
        }
        // The batch is done: what follows reads its replies and decrypts with the session's key, on this thread.
        do {
            guard case .read(let candidate, let secrets?) = try calls.takeHintedRead(hint, from: batch) else { return nil }
            defer { g_variant_unref(secrets) }
            guard KeyringItem.attributes(candidate.attributes, matchExactly: attributes),
                  let encoded = Variant.lookup(secrets, hint)
            else { return nil }
            defer { g_variant_unref(encoded) }
            let secret = try calls.decodeText(encoded, path: hint)
            return KeyringSecret(path: hint, attributes: candidate.attributes, secret: secret)
        } catch let failure as GLibFailure where failure.info.kind == .dbusTimeout || failure.info.isIO(G_IO_ERROR_CLOSED) {
            // Not a provider that left the bus (`ServiceUnknown`): D-Bus may start another, which the blocking path,
            // opening its session anew, then finds.
            throw BlockingCall.error(for: failure, timeout: timeout)
        } catch {
            // An error reply, or a secret this session did not decode: the blocking path knows what to do with it.
            return nil
        }
    }
}
