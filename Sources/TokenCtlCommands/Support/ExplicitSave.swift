import TokenAuth
import TokenAuthKeyring

extension KeyringAuthStore {
    /// Stores what the user asked to store (a sign-in or an import) with ``KeyringAuthStore/signIn(_:)``: under the
    /// item's lock, replacing whatever the item holds, an item this version cannot read included — and says so on
    /// standard error.
    package func saveExplicitly(_ credentials: StoredCredentials) async throws {
        guard let unreadable = try await signIn(credentials) else { return }
        Terminal.error(
            "Replaced the item for account \"\(account)\" on service \"\(service)\", which could not be read "
                + "(\(unreadable.reason)).")
    }
}
