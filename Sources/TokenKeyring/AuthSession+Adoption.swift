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
    /// Moves the items that an earlier version of this package wrote under the earlier default service (the issuer's
    /// host alone) to this session's service — only those that record this session's client ID and issuer: another
    /// app's, or another realm's of the same host, are left where they are, for that app.
    ///
    /// Each item moves under its old lock (a refresh of it in another process finishes first, and none starts on it
    /// while it moves): it is written under the new service unless that service already has the account, then deleted
    /// from the old one. An item whose refresh was not stored (`refreshStartedAt`) stays until the process that kept
    /// its answer stores it. Looked at once per session, on its first use of the keyring; a keyring that cannot be read
    /// now (locked) is looked at again on the next use.
    func adoptEarlierItems() async {
        guard !adoptionDone else { return }
        guard let earlier = configuration.adoptsItemsOf, earlier != configuration.service,
            case .issuer(let issuer) = configuration.provider
        else {
            adoptionDone = true
            return
        }
        do {
            let items = try await KeyringAuthStore.accounts(of: earlier, keyring: configuration.keyring)
            var complete = true
            for item in items {
                // A name gnome-keyring hides until its collection is unlocked: looked at again then.
                guard let account = item.attributes["account"] else {
                    complete = false
                    continue
                }
                if try await adopt(account, from: earlier, issuer: issuer) {
                    logger.debug("adopted an item of the earlier default service", metadata: ["service": "\(earlier)"])
                    if DefaultAccounts.account(for: earlier) == account, DefaultAccounts.account(for: configuration.service) == nil {
                        try? DefaultAccounts.set(account, for: configuration.service)
                    }
                }
            }
            adoptionDone = complete
        } catch {
            logger.debug(
                "could not look at the earlier default service's items", metadata: ["error": "\(LogRedaction.error(error))"])
        }
    }

    /// Moves `account`'s item from `earlier` to this session's service when it is this app's; whether it did.
    private func adopt(_ account: String, from earlier: String, issuer: URL) async throws -> Bool {
        let old = KeyringAuthStore(service: earlier, account: account, keyring: configuration.keyring)
        let new = KeyringAuthStore(service: configuration.service, account: account, keyring: configuration.keyring)
        let clientID = configuration.clientID
        return try await old.itemLock(maximumWait: KeyringAuthStore.signInLockWait).withLock {
            let stored: StoredCredentials?
            do {
                stored = try await old.loadCredentials()
            } catch let error as TokenAuthError where error.isUnreadableEntry {
                return false  // nothing says whose it is
            }
            guard let credentials = stored, let client = credentials.client, client.clientID == clientID,
                Self.isIssued(by: issuer, client), credentials.auth.refreshStartedAt == nil
            else { return false }
            guard try await new.loadCredentials() == nil else { return false }  // a session here already wins
            try await new.signIn(credentials)
            _ = try await old.remove()
            return true
        }
    }

    /// Whether `client` names `issuer`: the issuer it records, else (endpoints configured by hand at the time) a token
    /// endpoint at the issuer's origin and under its path.
    static func isIssued(by issuer: URL, _ client: OAuthClient) -> Bool {
        func normalized(_ url: URL) -> String {
            var text = url.absoluteString.lowercased()
            while text.hasSuffix("/") { text.removeLast() }
            return text
        }
        if let recorded = client.issuer { return normalized(recorded) == normalized(issuer) }
        return normalized(client.tokenEndpoint).hasPrefix(normalized(issuer) + "/")
    }
}
