import Keyring

// TODO(issue 32): delete this file once `KeyringError` has the categories of its own (the Keyring module's part of
// the shared error vocabulary); its conformance to `CategorizedError` then needs no code here.
//
// Until then, the one place where tokenctl classifies a `KeyringError`, by its code, as it always has: every code is
// a storage failure (exit 4) — the keyring is unavailable, locked, timed out, refused or misconfigured, or an item is
// gone or unusable between two calls. Nothing else in tokenctl looks at a keyring code to pick a status.
extension KeyringError: CategorizedError {
    package var isLoginRequired: Bool { false }
    package var isStorageFailure: Bool { true }
    package var isUnreadableEntry: Bool { false }
    package var isTransient: Bool { false }
    package var isMisconfiguration: Bool { false }
}
