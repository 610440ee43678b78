/// The result of ``Keyring/diagnose()``: each step between this process and a usable keyring, checked in order.
public struct KeyringDiagnosis: Sendable, CustomStringConvertible {
    /// How one check came out.
    public enum Status: String, Sendable, Hashable {
        /// Works.
        case ok
        /// Works, but needs attention (for example a locked keyring, which will prompt).
        case warning
        /// Does not work; later checks were skipped.
        case failed
    }

    /// One check.
    public struct Check: Sendable, Hashable {
        /// What was checked, e.g. "session bus".
        public let name: String
        /// How it came out.
        public let status: Status
        /// What was found.
        public let detail: String
        /// What to do about a warning or failure.
        public let fix: String?
    }

    /// The checks that ran, in order. They stop at the first failure.
    public let checks: [Check]
    /// The error a keyring call would throw now, derived from the first failed check.
    public let error: KeyringError?

    /// The program owning the Secret Service's bus name, when one does and it could be identified.
    public let provider: KeyringProvider?

    /// Whether the default collection was found locked: only a warning, because each call may show the provider's
    /// unlock prompt; but where prompting is off (`prompting: .never`, `tokenctl --no-prompt`) every read and write
    /// fails with `locked` until someone unlocks it.
    public let isDefaultCollectionLocked: Bool

    init(checks: [Check], error: KeyringError?, provider: KeyringProvider? = nil, isDefaultCollectionLocked: Bool = false) {
        self.checks = checks
        self.error = error
        self.provider = provider
        self.isDefaultCollectionLocked = isDefaultCollectionLocked
    }

    /// Whether every check passed, possibly with warnings.
    public var isUsable: Bool { error == nil }

    /// One line per check, with its fix, then one line per quirk of the provider.
    public var description: String {
        let lines = checks.map { check in
            var line = "[\(check.status.rawValue)] \(check.name): \(check.detail)"
            if let fix = check.fix { line += " — \(fix)" }
            return line
        }
        let quirks = (provider?.quirks ?? []).map { "[note] \(provider?.name ?? ""): \($0)" }
        return (lines + quirks).joined(separator: "\n")
    }
}
