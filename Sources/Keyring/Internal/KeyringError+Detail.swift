extension KeyringError {
    /// What caused an error: the cause as an error value (a ``GLibError``, kept in ``KeyringError/underlying`` for logs
    /// and debugging), and the cause in words, which the error's description shows. A person reads the sentence; the
    /// domain and code mean something only to a debugger. A cause written here (`"prompting is disabled"`) has words
    /// and no error value.
    package struct Detail: Sendable, ExpressibleByStringInterpolation {
        /// The cause in words; `nil` when there are none.
        package let words: String?
        /// The cause as an error value, when there is one.
        package let error: (any Error & Sendable)?

        package init(words: String?, error: (any Error & Sendable)?) {
            self.words = words
            self.error = error
        }

        /// A cause written here, in words already (`"nobody owns org.freedesktop.secrets"`).
        package init(stringLiteral value: String) {
            self.init(words: value, error: nil)
        }

        /// A cause written here from a value (`"\(error)"`), in words already.
        package init(_ text: String) {
            self.init(words: text, error: nil)
        }

        /// A GLib error: its message in words, the error itself as the underlying one.
        init(_ error: GLibError) {
            self.init(words: error.words, error: error)
        }
    }
}

extension GErrorInfo {
    /// The error as ``KeyringError/Detail``: the ``GLibError`` as reported, and its message in words — without the
    /// `GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: ` that GDBus puts before a remote error's text.
    var detail: KeyringError.Detail { KeyringError.Detail(error) }
}
