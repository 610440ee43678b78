import TokenAuth
import TokenAuthKeyring

extension KeyringAuthStore {
    /// Stores what the user asked to store (a sign-in or an import). It replaces whatever the item holds, an item
    /// this version cannot read included — the one write allowed to — and says so on standard error.
    func saveExplicitly(_ credentials: StoredCredentials) async throws {
        var unreadable: AuthStoreError?
        do {
            _ = try await loadCredentials()
        } catch let error as AuthStoreError {
            unreadable = error
        }
        try await save(credentials)
        if let unreadable {
            Terminal.error(
                "Replaced the item for account \"\(account)\" on service \"\(service)\", which could not be read "
                    + "(\(unreadable.reason)).")
        }
    }
}
