extension KeyringError {
    // The categories, in the same words on every error type of the package (`TokenAuthError`, `SignInError`): exactly
    // one of them holds for every code (`KeyringErrorCategoryTests` checks each).

    /// Whether a sign-in is needed: nothing is stored, the session was signed out or ended, or the server refused the
    /// credentials. Never for a keyring error: the keyring knows nothing of sign-ins, and an item that is not there
    /// is `nil`, not an error.
    public var isLoginRequired: Bool { false }

    /// Whether the store cannot be used just now: the keyring is locked, no Secret Service (in a sandbox, no Secret
    /// portal) answers, it did not answer in time (or has not answered yet), it or the portal refused, the provider or the sandbox's keyring
    /// file is set up so that it cannot serve, or there is no collection to store in. Nothing was lost: fix the store.
    public var isStorageFailure: Bool {
        [
            .serviceUnavailable, .locked, .timedOut, .waiting, .noDefaultCollection, .misconfigured, .portalUnavailable,
            .portalRefused, .other,
        ].contains(code)
    }

    /// Whether a stored entry cannot be read by this version: an item whose secret is not UTF-8 text (``Code/notText``).
    /// It was left untouched.
    public var isUnreadableEntry: Bool { code == .notText }

    /// Whether trying again later may succeed without any change: the item was deleted during the call
    /// (``Code/notFound``); a new lookup finds what is there now.
    public var isTransient: Bool { code == .notFound }

    /// Whether what was asked cannot work as configured, so that signing in again would not help: a secret larger
    /// than the keyring takes (``Code/secretTooLarge``).
    public var isMisconfiguration: Bool { code == .secretTooLarge }
}
