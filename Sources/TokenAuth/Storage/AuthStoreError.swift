/// An error about what a token store holds, as opposed to reaching the store (see `KeyringError`).
public struct AuthStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable { case corrupt, unsupportedVersion, missing, superseded }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The entry is not a token bundle this library understands; it was left untouched.
        public static let corrupt = Code(.corrupt)
        /// The entry was written by a newer version of the format; it was left untouched.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// A refresh was to replace the entry, and there is none any more: it was removed (signed out) elsewhere.
        /// Nothing was written.
        public static let missing = Code(.missing)
        /// A refresh was to replace the entry it had read, and another writer replaced it meanwhile (a sign-in in
        /// another process, say): the refresh's tokens were not written, so the newer entry stands.
        public static let superseded = Code(.superseded)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// Which entry, e.g. `service "S", account "A"`.
    public let entry: String
    /// What is wrong with it. Never contains a secret.
    public let reason: String

    /// What happened, then ``fix``.
    public var description: String {
        switch code {
        case .unsupportedVersion:
            return "The stored tokens for \(entry) use a newer format (\(reason)); they were left untouched. " + fix
        case .missing:
            return "The stored tokens for \(entry) were removed (\(reason)); the refreshed tokens were not written. " + fix
        case .superseded:
            return "The stored tokens for \(entry) were replaced (\(reason)) while they were refreshed; the "
                + "refreshed tokens were not written, and the newer ones stand. " + fix
        default:
            return "The stored tokens for \(entry) could not be read: \(reason). They were left untouched. " + fix
        }
    }

    /// What the user can do about it.
    public var fix: String {
        switch code {
        case .unsupportedVersion:
            return "Upgrade TokenKeyring, or sign in again to replace them."
        case .missing:
            return "Sign in again."
        case .superseded:
            return "Nothing to do: the next use takes the newer tokens."
        default:
            return "Sign in again (or import tokens) to replace them, or delete the entry."
        }
    }

    package static func corrupt(_ entry: String, _ reason: String) -> AuthStoreError {
        AuthStoreError(code: .corrupt, entry: entry, reason: reason)
    }

    package static func missing(_ entry: String) -> AuthStoreError {
        AuthStoreError(code: .missing, entry: entry, reason: "signed out elsewhere")
    }

    package static func superseded(_ entry: String) -> AuthStoreError {
        AuthStoreError(code: .superseded, entry: entry, reason: "by another writer")
    }

    package static func unsupportedVersion(_ entry: String, _ version: Int) -> AuthStoreError {
        AuthStoreError(code: .unsupportedVersion, entry: entry, reason: "version \(version)")
    }
}
