#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import TokenAuth

extension KeyringAuthStore {
    /// The stored access token when it can be handed out as it is stored — the session is live, no identity check
    /// is pending, and the token stays valid for `leeway` (as `AuthManager` decides) — read on the calling thread
    /// with `Keyring.lookupBlocking(_:)`; `nil` when anything else is needed: nothing stored, a refresh, a prompt,
    /// a check, a DPoP token (useless without its key's proofs), an item this version cannot read. Then ask an `AuthManager` (`AuthManager.forKeyringItem`), which
    /// decides the same way and does what is needed.
    ///
    /// For a command-line tool's first read, before it starts any Swift task: a token that is fresh as stored is
    /// then served without a task, a refresh lock or a thread of its own.
    ///
    /// ```swift
    /// let store = KeyringAuthStore(service: "api.example.com", account: "ada")
    /// if let token = try store.freshTokenBlocking(at: Date.now) {
    ///     print(token)
    /// }
    /// ```
    ///
    /// - Important: It blocks its thread for up to the keyring's timeout. Never call it from a Swift task.
    /// - Parameters:
    ///   - now: The wall clock's time.
    ///   - leeway: How long the token must stay valid, at most half its lifetime (`Auth.isFresh(at:leeway:)`); the
    ///     default is `AuthManager`'s.
    /// - Throws: `KeyringError` as `Keyring.lookup(_:)` throws it (locked with prompting disabled, no Secret Service,
    ///   timed out).
    public func freshTokenBlocking(at now: Date, leeway: Duration = AuthManager.Configuration().leeway) throws -> String? {
        guard case .fresh(let token) = try freshTokenLookupBlocking(at: now, leeway: leeway) else { return nil }
        return token
    }

    /// ``freshTokenBlocking(at:leeway:)``, telling an absent item apart from one that needs the manager.
    package func freshTokenLookupBlocking(at now: Date, leeway: Duration = AuthManager.Configuration().leeway) throws -> BlockingTokenLookup {
        let found: KeyringSecret
        switch try keyring.lookupBlocking(attributes) {
        case .absent: return .absent
        case .found(let secret): found = secret
        case .needsPrompt: return .needsManager
        }
        guard let credentials = try? StoredBundleFormat.decode(found.secret, entry: entry) else { return .needsManager }
        return BlockingTokenLookup(credentials, at: now, leeway: leeway)
    }
}
