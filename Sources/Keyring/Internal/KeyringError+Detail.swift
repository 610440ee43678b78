extension KeyringError {
    /// What caused an error, twice: as GLib reported it (`g-io-error-quark/0: Could not connect: …`), kept in
    /// ``KeyringError/underlying`` for logs and debugging, and in words (`Could not connect: …`), which the error's
    /// description shows. A person reads the sentence; the domain and code mean something only to a debugger.
    package struct Detail: Sendable, Equatable, ExpressibleByStringInterpolation {
        /// The cause in words; `nil` when GLib gave no message.
        package let words: String?
        /// The cause as reported, codes included.
        package let raw: String

        package init(words: String?, raw: String) {
            self.words = words
            self.raw = raw
        }

        /// A cause written here, in words already (`"nobody owns org.freedesktop.secrets"`).
        package init(stringLiteral value: String) {
            self.init(words: value, raw: value)
        }

        /// A cause written here from a value (`"\(error)"`), in words already.
        package init(_ text: String) {
            self.init(words: text, raw: text)
        }
    }
}

extension GErrorInfo {
    /// The error as ``KeyringError/Detail``: `domain/code: message` as reported, and the message in words —
    /// without the `GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: ` that GDBus puts before a remote error's
    /// text (the name stays in the raw form).
    var detail: KeyringError.Detail {
        var words = Substring(message)
        if words.hasPrefix("GDBus.Error:"), let separator = words.firstRange(of: ": ") {
            words = words[separator.upperBound...]
        }
        return KeyringError.Detail(words: words.isEmpty ? nil : String(words), raw: text)
    }
}
