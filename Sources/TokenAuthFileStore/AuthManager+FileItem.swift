#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import TokenAuth

extension AuthManager {
    /// A manager for the ``FileAuthStore`` file of `account` on `service`: what TokenAuthKeyring's
    /// `AuthManager.forKeyringItem(service:account:…)` is for a keyring item — the token endpoint and client recorded in the file, the file's lock (in the store's
    /// directory, shared with every other process that uses it), the write ahead of each grant, its answer kept until
    /// stored (``FileAuthStore/refreshJournal``), the compare-and-swap write, revocation of tokens a refresh lost, the
    /// client credentials grant and identity checks as the file records them.
    /// With `followsChanges`, it follows the releases of the item's lock (`FileRefreshLock.releases()`): after another
    /// process refreshed, signed in or signed out, the next use reads the file again.
    ///
    /// Never a fallback the library takes: call it for an item the user chose to keep in a file.
    ///
    /// Unlike `forKeyringItem`, it adds no systemd-logind sleep inhibitor to the configuration's `windowGuards`: this
    /// module links no D-Bus, so that an app for a container links no libsecret or GLib. Where a laptop may suspend
    /// between a refresh grant and the store of its answer, pass TokenAuthKeyring's `SleepInhibitorGuard()` among
    /// the `windowGuards`, as `tokenctl` does.
    ///
    /// ```swift
    /// let manager = try await AuthManager.forFileItem(
    ///     service: "api.example.com", account: "ada", transport: transport)
    /// let token = try await manager.validToken()
    /// ```
    ///
    /// - Parameters:
    ///   - service: The service the tokens are for.
    ///   - account: The account they belong to.
    ///   - directory: The file store's directory; by default `FileAuthStore.defaultDirectory()`.
    ///   - transport: Sends the token and revocation requests.
    ///   - configuration: The manager's configuration, its window guards included; the file's client may turn on the
    ///     client credentials grant.
    ///   - identityChecks: Makes the identity check of a file that records who signed in.
    ///   - followsChanges: Whether to follow the lock's releases; a process that lives for one request passes `false`.
    ///   - wallClock: The wall clock for expiry, and for `refreshed_at`.
    ///   - logger: Where the manager logs; never a secret.
    /// - Throws: `TokenAuthError` `noCredentials` when there is no file; the store's errors when it cannot be read.
    public static func forFileItem(
        service: String, account: String, directory: URL? = nil,
        transport: any HTTPTransport,
        configuration: Configuration = Configuration(), identityChecks: IdentityCheckFactory? = nil,
        followsChanges: Bool = true, wallClock: @escaping WallClock = systemWallClock,
        logger: Logger = Logger(label: "TokenAuth.AuthManager")
    ) async throws -> AuthManager {
        let reader = FileAuthStore(service: service, account: account, directory: directory)
        guard let credentials = try await reader.loadCredentials() else {
            throw TokenAuthError.noCredentials(
                "no credentials are stored for account \"\(account)\" on service \"\(service)\" in \(reader.path)")
        }
        let store = FileAuthStore(
            service: service, account: account, client: credentials.client, directory: directory, wallClock: wallClock)
        let lock = store.itemLock()
        return await managing(
            store, credentials: credentials, lock: lock, transport: transport, configuration: configuration,
            identityChecks: identityChecks, storeChanges: followsChanges ? lock.releases() : nil, wallClock: wallClock,
            logger: logger)
    }
}
