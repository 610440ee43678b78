#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import Logging
import TokenAuth

extension AuthManager {
    /// A manager for the keyring item of `account` on `service`, refreshing through the token endpoint and client
    /// recorded in the item, under the item's lock (`KeyringAuthStore.itemLock`) shared with every other process
    /// using the item. Before each grant the item is marked as refreshing (the write ahead, which fails the call with
    /// nothing spent when the keyring cannot be written), and each answer is kept in memory outside the process
    /// (``KeyringAuthStore/refreshJournal``) until the item holds it: an answer the keyring did not take is stored by
    /// the next use, in this process or another. Tokens a refresh received but lost to a sign-in or sign-out elsewhere
    /// are revoked at the item's revocation endpoint, when it records one. While a refresh token is at stake the
    /// manager holds a systemd-logind delay lock on sleep and shutdown (``SleepInhibitorGuard``, added to the
    /// configuration's `windowGuards` unless it has one), where logind exists. It follows the Secret Service's announcements of item changes
    /// (`Keyring.changes()`) and the releases of the item's lock (`FileRefreshLock.releases()`): after another
    /// process refreshed, signed in or signed out, the next use reads the item again instead of handing out the token
    /// held in memory — best effort, since not every change is announced; each refresh reads the item again under
    /// the lock whatever was announced. A process that lives for one
    /// request, like `tokenctl`, passes `followsChanges: false` and saves the subscription.
    ///
    /// One keyring item is all it needs (`tokenctl token` is built on it). Refreshed tokens are written back with
    /// the time of the refresh (`refreshed_at`). An item with no refresh token whose client has a secret — what a
    /// `client_credentials` login stores — gets new tokens with that grant (RFC 6749 §4.4 allows it only for
    /// confidential clients), asking for the stored scope. An item with an identity gets `identityChecks(client)` as
    /// its `Configuration.identityCheck` (unless the configuration has one), so a refresh can never change who is
    /// signed in: pass TokenAuthSignIn's `IDTokenVerifier.forStoredClient`, which checks refreshed id_tokens against
    /// the issuer and `jwks_uri` the item records. Without one, refreshed id_tokens are not checked (and a notice says
    /// so): this library links no JOSE code of its own.
    ///
    /// With a `clientID`, the item must record that client, on this load and every later one (another process may
    /// write the item): tokens issued to another app are never sent (`KeyringAuthStore.expectedClientID`). Give it
    /// whenever the app knows its client ID: two apps that share a service by mistake then fail with a clear error
    /// instead of using each other's tokens.
    /// - Throws: `TokenAuthError` `noCredentials` when nothing is stored, `invalidClientConfiguration` when the item
    ///   records another client than `clientID`; the store's errors when it cannot be read.
    public static func forKeyringItem(
        service: String,
        account: String,
        clientID: String? = nil,
        keyring: Keyring = Keyring(),
        transport: any HTTPTransport,
        configuration: Configuration = Configuration(),
        identityChecks: IdentityCheckFactory? = nil,
        followsChanges: Bool = true,
        wallClock: @escaping WallClock = systemWallClock,
        logger: Logger = Logger(label: "TokenAuth.AuthManager")
    ) async throws -> AuthManager {
        // Subscribed before the read: a change announced after it is not missed. Best effort, like the signals.
        let changes = followsChanges ? try? await keyring.changes() : nil
        let reader = KeyringAuthStore(service: service, account: account, keyring: keyring, expectedClientID: clientID)
        guard let credentials = try await reader.loadCredentials() else {
            throw TokenAuthError.noCredentials("no credentials are stored for account \"\(account)\" on service \"\(service)\"")
        }
        let store = KeyringAuthStore(
            service: service, account: account, client: credentials.client, keyring: keyring, wallClock: wallClock,
            expectedClientID: clientID)
        let lock = store.itemLock()
        return await managing(
            store, credentials: credentials, lock: lock, transport: transport,
            configuration: configuration.holdingOffSleep, identityChecks: identityChecks,
            storeChanges: changes.map { Self.announcements($0, lock.releases()) }, wallClock: wallClock, logger: logger)
    }
}

extension AuthManager {
    /// What may have changed the item, as the manager takes it: the keyring's announced changes (each may concern the
    /// item — its path can change when it is deleted and created again elsewhere) and the releases of the item's lock
    /// (every writer of this package takes it, whatever its provider announces). Each makes the manager read the item
    /// again before the next use. The relays end, and the subscriptions with them, when the manager stops listening.
    static func announcements(_ changes: KeyringChanges, _ releases: AsyncStream<Void>) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let relay = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await _ in changes { continuation.yield() } }
                group.addTask { for await _ in releases { continuation.yield() } }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in relay.cancel() }
        return stream
    }
}
