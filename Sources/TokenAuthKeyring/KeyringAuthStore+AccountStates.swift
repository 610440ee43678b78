#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import TokenAuth

extension KeyringAuthStore {
    /// One stored account and the state of its session, as ``accountStates(of:keyring:at:leeway:)`` reads it: the
    /// core's `StoredAccountState`, which `FileAuthStore` lists too.
    public typealias AccountState = StoredAccountState

    /// Every stored account of `service` and the state of its session at `now`, read without refreshing, writing or
    /// unlocking anything: items of a locked collection are `.locked` unread, with an empty `account` where
    /// gnome-keyring hides its name until the collection is unlocked (see ``accounts(of:keyring:)``).
    ///
    /// ```swift
    /// for account in try await KeyringAuthStore.accountStates(of: "api.example.com", at: Date.now) {
    ///     print(account.account, account.state)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - service: The items' `service` attribute.
    ///   - keyring: The keyring to read.
    ///   - now: The wall clock's time.
    ///   - leeway: As `AuthManager`'s: a token valid for less is `.needsRefresh`.
    /// - Throws: `KeyringError` (no Secret Service, timed out).
    public static func accountStates(
        of service: String, keyring: Keyring = Keyring(), at now: Date,
        leeway: Duration = AuthManager.Configuration().leeway
    ) async throws -> [AccountState] {
        var states: [AccountState] = []
        for item in try await accounts(of: service, keyring: keyring) {
            let account = item.attributes["account"] ?? ""
            guard !item.isLocked else {
                states.append(AccountState(account: account, state: .locked, identityCheckPending: false))
                continue
            }
            let store = KeyringAuthStore(service: service, account: account, keyring: keyring)
            let credentials: StoredCredentials?
            do {
                credentials = try await store.loadCredentials()
            } catch let error as TokenAuthError where error.isUnreadableEntry {
                states.append(AccountState(account: account, unreadable: error.reason))
                continue
            } catch let error as KeyringError where error.code == .locked {
                states.append(AccountState(account: account, state: .locked, identityCheckPending: false))
                continue
            }
            // Deleted between the listing and the read: no longer an account.
            guard let credentials else { continue }
            states.append(AccountState(account: account, credentials: credentials, at: now, leeway: leeway))
        }
        return states
    }
}
