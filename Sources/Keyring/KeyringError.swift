/// An error from the Secret Service, with what happened and how to fix it.
///
/// Compare ``code`` to tell the cases apart: "locked", "no Secret Service", "not found" and "timed out"
/// are different errors, and none of them is ever reported as another. Descriptions never contain a secret.
public struct KeyringError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. New kinds may be added; switch over it with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case serviceUnavailable, locked, timedOut, notFound, noDefaultCollection
            case secretTooLarge, notText, misconfigured, portalUnavailable, portalRefused, other
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// No session bus, or no Secret Service provider on it.
        public static let serviceUnavailable = Code(.serviceUnavailable)
        /// The item or collection is locked and could not be unlocked (no prompt allowed, or the prompt failed).
        public static let locked = Code(.locked)
        /// The Secret Service did not answer within the configured timeout.
        public static let timedOut = Code(.timedOut)
        /// The item does not exist (any more).
        public static let notFound = Code(.notFound)
        /// The Secret Service has no default collection to store new items in, or no collection by the path given.
        public static let noDefaultCollection = Code(.noDefaultCollection)
        /// The secret is larger than the limit this library keeps to.
        public static let secretTooLarge = Code(.secretTooLarge)
        /// The stored secret is not UTF-8 text.
        public static let notText = Code(.notText)
        /// The Secret Service provider runs but is set up so that it cannot serve us (e.g. KWallet without its
        /// crypto plugin); its fix names the setting or package.
        public static let misconfigured = Code(.misconfigured)
        /// In a sandbox (Flatpak): no desktop portal answers on the session bus, or the portal has no backend for
        /// the interface asked for (the Secret portal needs gnome-keyring's portal backend on the host).
        public static let portalUnavailable = Code(.portalUnavailable)
        /// In a sandbox (Flatpak): the desktop portal refused the request (its reason in ``KeyringError/underlying``).
        public static let portalRefused = Code(.portalRefused)
        /// Any other error reported by libsecret, GLib or D-Bus.
        public static let other = Code(.other)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened, in one sentence without a fix. Never contains a secret.
    public let summary: String
    /// What the user can do about it.
    public let fix: String
    /// The underlying GLib error as `domain/code: message`, when there is one: with its codes, for logs and for
    /// someone debugging. ``description`` names the cause in words instead.
    public let underlying: String?
    /// The cause in words (GLib's message without its domain, code or D-Bus error name), for ``description``.
    let cause: String?

    init(_ code: Code, _ summary: String, fix: String, underlying: Detail? = nil) {
        self.code = code
        self.summary = summary
        self.fix = fix
        self.underlying = underlying?.raw
        self.cause = underlying?.words
    }

    /// The summary with the cause in words (GLib's message, when the summary does not quote it already), then the
    /// fix, for a person to read: "No Secret Service is reachable on the D-Bus session bus (Could not connect: No
    /// such file or directory). Run inside …". The codes stay in ``underlying``.
    public var description: String {
        "\(summaryWithCause) \(fix)"
    }

    /// The summary with the cause in words inside its sentence, for ``description`` and a diagnosis's check (which
    /// shows the fix apart).
    var summaryWithCause: String {
        guard let cause, !cause.isEmpty, !summary.contains(cause) else { return summary }
        if summary.hasSuffix(").") { return summary.dropLast(2) + "; \(cause))." }
        if summary.hasSuffix(".") { return summary.dropLast() + " (\(cause))." }
        return summary + " (\(cause))"
    }

    /// ``underlying`` and ``cause`` again, for an error that wraps this one.
    var detail: Detail? { underlying.map { Detail(words: cause, raw: $0) } }

    /// This error with another fix: one that fits the machine (``KeyringSetupAdvice``).
    func replacingFix(_ fix: String) -> KeyringError {
        KeyringError(code, summary, fix: fix, underlying: detail)
    }
}

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

    package static func other(_ summary: String, _ detail: Detail?) -> KeyringError {
        KeyringError(.other, summary, fix: "See the underlying error; a diagnosis of the keyring set-up checks it step by step.", underlying: detail)
    }
}
