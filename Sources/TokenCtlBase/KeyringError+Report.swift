import Keyring

extension KeyringError {
    /// Whether no keyring can be reached at all — no Secret Service, or in a sandbox no Secret portal — so that the
    /// file store (`--insecure-storage`) is where an item may be, and its flag the alternative to name.
    package var meansNoKeyring: Bool { code == .serviceUnavailable || code == .portalUnavailable }

    /// What tokenctl says of this error: the library's sentence, and where the cause is in the set-up rather than in
    /// the item, the command that checks the set-up step by step and gives the fix that fits this machine (a locked
    /// keyring on a machine without a display is unlocked differently than on a desktop). With
    /// ``TokenCtlLogging/showsCodes``, GLib's domain and code after it.
    package var report: String {
        let setUp: Set<Code> = [.timedOut, .other, .locked, .noDefaultCollection]
        let advice = setUp.contains(code) || meansNoKeyring
            ? " Run `tokenctl doctor` to check the keyring set-up step by step." : ""
        let codes = TokenCtlLogging.showsCodes ? underlying.map { " [\($0)]" } ?? "" : ""
        return description + advice + codes
    }
}
