/// The errors of the Secret Service and of this library's own limits: every ``KeyringError`` outside a sandbox is made
/// by one of these.
extension KeyringError {
    static func serviceUnavailable(_ detail: Detail?) -> KeyringError {
        KeyringError(
            .serviceUnavailable,
            "No Secret Service is reachable on the D-Bus session bus.",
            fix: "Run inside a desktop session with a keyring (gnome-keyring, KeePassXC, KWallet), "
                + "or start one: `dbus-run-session -- sh -c 'printf PASSWORD | gnome-keyring-daemon --unlock --components=secrets; …'`; "
                + "check that DBUS_SESSION_BUS_ADDRESS points at a live bus.",
            underlying: detail)
    }

    /// No session bus answers at `address` (`nil`: `DBUS_SESSION_BUS_ADDRESS` is not set).
    static func noSessionBus(address: String?, _ detail: Detail?) -> KeyringError {
        let where_ = address.map { "DBUS_SESSION_BUS_ADDRESS=\($0)" } ?? "DBUS_SESSION_BUS_ADDRESS is not set"
        return KeyringError(
            .serviceUnavailable, "No D-Bus session bus could be reached (\(where_)).",
            fix: "Run inside a desktop session, or start a bus with `dbus-run-session -- COMMAND`.",
            underlying: detail)
    }

    /// The provider left the session bus (it exited or crashed) while a call waited for its answer.
    static func providerLeft(_ detail: Detail?) -> KeyringError {
        KeyringError(
            .serviceUnavailable,
            "The Secret Service provider left the session bus during the call: it exited or crashed before answering.",
            fix: "Start the keyring again (or let D-Bus start it) and retry; its log says why it stopped.",
            underlying: detail)
    }

    static func locked(_ detail: Detail?) -> KeyringError {
        KeyringError(
            .locked,
            "The keyring is locked and could not be unlocked.",
            fix: "Unlock the keyring (for example the login keyring in Seahorse, or `secret-tool search --unlock …`) and try again; "
                + "the stored items are intact.",
            underlying: detail)
    }

    /// `locked`, for an item found in a collection that its provider shows only hashed until it is unlocked
    /// (``KeyringItem/hashedAttributeNames``): what the item is cannot be told before the collection is unlocked.
    public static func hashedWhileLocked(_ item: KeyringItem) -> KeyringError {
        let names = item.hashedAttributeNames.sorted().joined(separator: ", ")
        return KeyringError(
            .locked,
            "An item in the locked collection \(item.collectionPath) shows its attributes (\(names)) only hashed until "
                + "the collection is unlocked.",
            fix: "Unlock the keyring (for example the login keyring in Seahorse, or `secret-tool search --unlock …`) and "
                + "try again; the stored items are intact.")
    }

    /// A call still waiting for the Secret Service after `patience`, its timeout not run out yet.
    package static func stillWaiting(after patience: Duration) -> KeyringError {
        KeyringError(
            .waiting,
            "The Secret Service has not answered for \(patience); it may be showing an unlock prompt, or be busy.",
            fix: "Unlock the keyring if it asks; otherwise wait, or check that the keyring daemon is responsive.")
    }

    static func timedOut(after timeout: Duration, _ detail: Detail?) -> KeyringError {
        KeyringError(
            .timedOut,
            "The Secret Service did not answer within \(timeout).",
            fix: "Check that the keyring daemon is responsive, then try again or raise the timeout.",
            underlying: detail)
    }

    /// A write that waited for the lock of its item longer than the call's timeout, and so did not start.
    static func writeStillRunning(after timeout: Duration) -> KeyringError {
        KeyringError(
            .timedOut,
            "Another write to the same keyring item was still running after \(timeout); this write was not started.",
            fix: "Try again once the other write has finished, or raise the timeout; if writes keep stalling, "
                + "check for an unanswered unlock prompt and that the keyring daemon is responsive.")
    }

    static func timedOutWaitingForUnlock(after timeout: Duration, _ detail: Detail?) -> KeyringError {
        KeyringError(
            .timedOut,
            "The Secret Service did not answer within \(timeout); the keyring is locked and may be waiting for the user to unlock it.",
            fix: "Unlock the keyring in its own window (KeePassXC shows its unlock dialog when a search needs it) and try again, "
                + "or turn off KeePassXC's \"Unlock database before searching\" (Settings → Secret Service Integration).",
            underlying: detail)
    }

    /// KWallet (kwalletd5) accepts only an encrypted session, and encrypts through libqca's OpenSSL plugin.
    static func kwalletCryptoPluginMissing(_ detail: Detail?) -> KeyringError {
        KeyringError(
            .misconfigured,
            "KWallet refused to open an encrypted session: its crypto plugin (libqca-ossl) is missing.",
            fix: "Install the QCA plugins (Debian/Ubuntu: `apt-get install libqca-qt5-2-plugins`) and restart kwalletd5 "
                + "(log out and in, or `kquitapp5 kwalletd5`).",
            underlying: detail)
    }

    static func sessionRefused(_ detail: Detail?) -> KeyringError {
        KeyringError(
            .misconfigured,
            "The Secret Service refused to open a session with the algorithms libsecret offers.",
            fix: "Check the provider's installation and its log; a diagnosis of the keyring names the provider.",
            underlying: detail)
    }

    static func notFound(_ detail: Detail?) -> KeyringError {
        KeyringError(.notFound, "The keyring item no longer exists.", fix: "Look it up again.", underlying: detail)
    }

    static func noDefaultCollection(_ detail: Detail?) -> KeyringError {
        KeyringError(
            .noDefaultCollection,
            "The Secret Service has no default keyring to store new items in.",
            fix: "Create a default keyring (for example with Seahorse) or pass an explicit collection.",
            underlying: detail)
    }

    static func notAnObjectPath(_ path: String) -> KeyringError {
        KeyringError(
            .noDefaultCollection,
            "The collection path “\(path)” is not a D-Bus object path, so it names no collection.",
            fix: "Pass a path such as /org/freedesktop/secrets/collection/login: the Secret Service's Collections "
                + "property lists them.")
    }

    static func secretTooLarge(size: Int, limit: Int) -> KeyringError {
        KeyringError(
            .secretTooLarge,
            "The secret is \(size) bytes; the limit is \(limit) bytes.",
            fix: "Store less data in one item (secret-tool cannot read larger secrets).")
    }

    static func notText(_ path: String) -> KeyringError {
        KeyringError(
            .notText,
            "The keyring item \(path) does not hold UTF-8 text.",
            fix: "Replace the item with a text secret, or delete it.")
    }

    /// The session bus refused the match rules that bring the Secret Service's signals to this process.
    static func signalsRefused() -> KeyringError {
        KeyringError(
            .other,
            "The session bus refused to send this process the Secret Service's signals, so changes cannot be followed.",
            fix: "The process may have used up the bus's match rules per connection (dbus-daemon's "
                + "max_match_rules_per_connection); reading and writing items still work, so read an item again before "
                + "relying on it.")
    }

    package static func other(_ reason: String, _ detail: Detail?) -> KeyringError {
        KeyringError(.other, reason, fix: "See the underlying error; a diagnosis of the keyring set-up checks it step by step.", underlying: detail)
    }
}

extension KeyringError {
    /// A search that timed out after `timeout` while the default collection is locked, when prompting is disabled.
    static func searchWaitsForUnlock(after timeout: Duration) -> KeyringError {
        .locked(Detail(
            "prompting is disabled, and the Secret Service did not answer a search within \(timeout) "
                + "while the default collection is locked (KeePassXC waits for its unlock dialog when UnlockBeforeSearch is on)"))
    }
}

extension KeyringError {
    /// A diagnosis that ended with `error` (a cancellation) instead of a result.
    static func diagnosisInterrupted(_ error: any Error) -> KeyringError {
        .other("The diagnosis was interrupted.", Detail(words: "\(error)", error: error))
    }
}
