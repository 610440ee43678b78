/// An error as GLib reported it — from libsecret, GIO or D-Bus (GDBus): the ``KeyringError/underlying`` of a
/// ``KeyringError`` that one caused.
///
/// Its ``description`` is `domain/code: message`, for logs and for someone debugging; a ``KeyringError``'s own
/// description names the cause in words instead (``words``).
public struct GLibError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error domain's name, e.g. `g-io-error-quark`, `g-dbus-error-quark`, `secret-error`.
    public let domain: String
    /// The code within its domain (`GIOErrorEnum`, `GDBusError`, `SecretError`).
    public let code: Int32
    /// The message as GLib gave it; a D-Bus peer's error comes with GDBus's
    /// `GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: ` before its text.
    public let message: String

    /// Creates an error value; the package makes them from the `GError`s that libsecret, GIO and GDBus return.
    public init(domain: String, code: Int32, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }

    /// `domain/code: message`, as reported.
    public var description: String { "\(domain)/\(code): \(message)" }

    /// The message in words: without the `GDBus.Error:NAME: ` that GDBus puts before a remote error's text (the
    /// name stays in ``message``); `nil` when there is no message.
    public var words: String? {
        var words = Substring(message)
        if words.hasPrefix("GDBus.Error:"), let separator = words.firstRange(of: ": ") {
            words = words[separator.upperBound...]
        }
        return words.isEmpty ? nil : String(words)
    }
}
