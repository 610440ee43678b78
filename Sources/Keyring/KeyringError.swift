/// An error from the keyring — the Secret Service, or in a sandbox the app's keyring file — with what happened and
/// how to fix it.
///
/// ```swift
/// do {
///     let stored = try await keyring.lookup(attributes) != nil
///     show(stored ? "Signed in" : "Not signed in")
/// } catch let error as KeyringError where error.isStorageFailure {
///     show(error.reason, error.fix)   // locked, no Secret Service, timed out…: nothing was lost
/// }
/// ```
///
/// Compare ``code`` to tell the cases apart: "locked", "no Secret Service", "not found" and "timed out" are different
/// errors, and none of them is ever reported as another; or ask the categories (``isStorageFailure``,
/// ``isUnreadableEntry``, ``isTransient``, ``isMisconfiguration``), which every error type of the package answers in
/// the same words. ``reason`` says what happened and ``fix`` what to do; ``description`` is both, with the cause in
/// words. ``underlying`` is the cause, when libsecret, GIO or D-Bus reported one (a ``GLibError``). No text of it
/// contains a secret.
public struct KeyringError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. New kinds may be added; switch over it with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable, CaseIterable {
            case serviceUnavailable, locked, timedOut, waiting, notFound, noDefaultCollection
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
        /// The Secret Service has not answered yet, though its timeout has not run out: an unlock prompt may be open, or
        /// it is busy. Said while waiting (an `AuthSession`'s states), never thrown by a call.
        public static let waiting = Code(.waiting)
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

        /// Every code, for tests that go through them all.
        package static var all: [Code] { Base.allCases.map(Code.init) }

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened, in a sentence or two without a fix. Never contains a secret.
    public let reason: String
    /// What the user can do about it.
    public let fix: String
    /// The cause, when there is one: the ``GLibError`` that libsecret, GIO or D-Bus reported (its domain and code,
    /// for logs and for someone debugging). ``description`` names the cause in words instead.
    public let underlying: (any Error & Sendable)?
    /// The cause in words (GLib's message without its domain, code or D-Bus error name, or a cause written here),
    /// for ``description``.
    let cause: String?

    init(_ code: Code, _ reason: String, fix: String, underlying: Detail? = nil) {
        self.code = code
        self.reason = reason
        self.fix = fix
        self.underlying = underlying?.error
        self.cause = underlying?.words
    }

    /// The reason with the cause in words (GLib's message, when the reason does not quote it already), then the
    /// fix, for a person to read: "No Secret Service is reachable on the D-Bus session bus (Could not connect: No
    /// such file or directory). Run inside …". The codes stay in ``underlying``.
    public var description: String {
        "\(reasonWithCause) \(fix)"
    }

    /// The reason with the cause in words inside its sentence, for ``description`` and a diagnosis's check (which
    /// shows the fix apart).
    var reasonWithCause: String {
        guard let cause, !cause.isEmpty, !reason.contains(cause) else { return reason }
        if reason.hasSuffix(").") { return reason.dropLast(2) + "; \(cause))." }
        if reason.hasSuffix(".") { return reason.dropLast() + " (\(cause))." }
        return reason + " (\(cause))"
    }

    /// ``underlying`` and ``cause`` again, for an error that wraps this one.
    var detail: Detail? {
        guard underlying != nil || cause != nil else { return nil }
        return Detail(words: cause, error: underlying)
    }

    /// This error with another fix: one that fits the machine (``KeyringSetupAdvice``).
    func replacingFix(_ fix: String) -> KeyringError {
        KeyringError(code, reason, fix: fix, underlying: detail)
    }

    /// Two errors are equal when they say the same: the same code, reason and fix, and the same cause (compared as
    /// described).
    public static func == (lhs: KeyringError, rhs: KeyringError) -> Bool {
        lhs.code == rhs.code && lhs.reason == rhs.reason && lhs.fix == rhs.fix && lhs.cause == rhs.cause
            && lhs.underlying.map { "\($0)" } == rhs.underlying.map { "\($0)" }
    }
}
