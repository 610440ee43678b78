#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import TokenAuth
import TokenAuthFileStore
import TokenAuthKeyring

extension AuthSession {
    /// Signs the current account out: revokes its tokens at the provider (RFC 7009, when it has a revocation
    /// endpoint), then deletes its keyring item — under the item's lock, so that a refresh in another process finishes
    /// first and cannot write the tokens back — and then makes its manager forget them. The state becomes
    /// ``State/signedOut``.
    ///
    /// The item is deleted even when the revocation fails: the user asked to be signed out here, and a token that
    /// could not be revoked stays valid only until it expires. The outcome says what happened at the provider.
    /// - Returns: whether an item was deleted, and what the revocation did.
    /// - Throws: `KeyringError` when the item could not be deleted (then the user is still signed in).
    @discardableResult
    public func signOut() async throws -> SignOut.Outcome {
        guard let account = try currentAccount() else { return SignOut.Outcome(deleted: false, revocation: .notConfigured) }
        let outcome = try await SignOut.perform(
            service: configuration.service, account: account, keyring: configuration.keyring,
            transport: configuration.transport, wallClock: configuration.wallClock)
        if let manager = managers.removeValue(forKey: account) { try? await manager.signOut() }
        publish(await readState())
        return outcome
    }

    /// The accounts of this session's service stored in the keyring, with who each one is.
    /// - Throws: `KeyringError`.
    public func accounts() async throws -> [Account] {
        await adoptEarlierItems()
        var accounts: [Account] = []
        for item in try await KeyringAuthStore.accounts(of: configuration.service, keyring: configuration.keyring) {
            guard let name = item.attributes["account"] else { continue }
            let store = KeyringAuthStore(service: configuration.service, account: name, keyring: configuration.keyring)
            let identity = (try? await store.loadCredentials())??.identity
            accounts.append(Account(name: name, identity: identity))
        }
        return accounts
    }

    /// Makes `account` the current account, and the service's default (as `tokenctl switch` does).
    /// - Throws: `TokenAuthError` `noCredentials` when no such account is stored; `KeyringError`.
    public func switchAccount(to account: String) async throws {
        let store = KeyringAuthStore(service: configuration.service, account: account, keyring: configuration.keyring)
        guard try await store.loadCredentials() != nil else {
            throw TokenAuthError.noCredentials("no account \"\(account)\" of \(configuration.service) is stored")
        }
        chosenAccount = account
        try? DefaultAccounts.set(account, for: configuration.service)
        publish(await readState())
    }
}
