import Foundation
import Keyring
import TokenAuth

/// Token bundles in the Secret Service: one item per (service, account).
///
/// The item's attributes are exactly `service` and `account`, its label is "OAuth tokens for ACCOUNT on
/// SERVICE", and its secret is the versioned JSON text described in TokenAuth's article "The keyring item" — so
/// people and scripts can use the same item with `secret-tool` and `tokenctl`:
///
/// ```sh
/// secret-tool lookup service example.org account ada
/// ```
///
/// Reads find items whatever wrote them (no schema filter): an item that `secret-tool store` made with a
/// single-line token loads as a bare access token. A locked keyring throws `KeyringError` with code
/// `locked`; it is never taken for "nothing stored".
public struct KeyringAuthStore: AuthStore, CredentialsEntry {
    /// The service the tokens are for, e.g. the API's host name.
    public let service: String
    /// The account the tokens belong to.
    public let account: String
    /// The client stored with the tokens by ``save(_:)-(Auth)``; `nil` keeps whatever client the item records.
    public let client: OAuthClient?
    /// Where new items are created.
    public let collection: KeyringCollection
    /// When set, saving an `Auth` records the time as the item's `refreshed_at`: give it to the store an
    /// `AuthManager` writes refreshed tokens to, so that tools reading the item can say when the last refresh was.
    public let wallClock: WallClock?
    let keyring: Keyring

    /// Creates a store for one (service, account) item.
    /// - Parameters:
    ///   - service: the service the tokens are for, e.g. the API's host name: the item's `service` attribute.
    ///   - account: the account the tokens belong to: the item's `account` attribute.
    ///   - client: the token endpoint and client identity to record next to the tokens, so that
    ///     `tokenctl` can refresh them with nothing but the item.
    ///   - keyring: the Secret Service client (timeouts and prompt policy).
    ///   - collection: where a new item is created; an existing item is updated where it is.
    ///   - wallClock: when set, saves of an `Auth` (what the refresher writes back) record the time as
    ///     `refreshed_at`; saves of `StoredCredentials` store exactly what they are given.
    public init(
        service: String,
        account: String,
        client: OAuthClient? = nil,
        keyring: Keyring = Keyring(),
        collection: KeyringCollection = .default,
        wallClock: WallClock? = nil
    ) {
        self.service = service
        self.account = account
        self.client = client
        self.keyring = keyring
        self.collection = collection
        self.wallClock = wallClock
    }

    /// The item's attributes: exactly these two.
    public var attributes: [String: String] { ["service": service, "account": account] }

    /// The item's label.
    public var label: String { "OAuth tokens for \(account) on \(service)" }

    package var entry: String { "service \"\(service)\", account \"\(account)\"" }

    /// The stored tokens, or `nil` when no item exists.
    /// - Throws: `KeyringError` (locked, unavailable, timed out) or `TokenAuthError` (unreadable item, left as it is).
    public func load() async throws -> Auth? {
        try await loadCredentials()?.auth
    }

    /// The stored tokens and client, or `nil` when no item exists.
    public func loadCredentials() async throws -> StoredCredentials? {
        guard let found = try await keyring.lookup(attributes) else { return nil }
        return try StoredBundleFormat.decode(found.secret, entry: entry)
    }

    /// Stores `auth` with this store's ``client``; without one, keeps the client the item already records.
    /// With a ``wallClock``, also records the time as `refreshed_at`.
    public func save(_ auth: Auth) async throws {
        try await saveKeepingClient(auth)
    }

    /// Stores refreshed tokens in place of the version they were refreshed from (what `AuthManager` writes after a
    /// refresh), keeping the item's client unless this store has one, and recording the time with a ``wallClock``.
    ///
    /// A compare-and-swap: it writes only if the item still holds `previous` (`Auth.isSameVersion(as:)`). It never
    /// creates an item, never replaces one another writer changed since `previous` was read (a sign-in elsewhere
    /// wins), and never replaces one it cannot read (written by a newer version). The Secret Service has no
    /// conditional write, so the comparison and the write are two calls: `AuthManager` makes them one step by
    /// holding the item's lock (``itemLock(maximumWait:)``), which every writer of this package takes.
    /// - Throws: `TokenAuthError` — `missing` when there is no item, `superseded` when it holds another version,
    ///   `corrupt` or `unsupportedVersion` when it cannot be read (left untouched); `KeyringError` when the keyring
    ///   cannot be used.
    public func update(_ auth: Auth, replacing previous: Auth) async throws {
        try await compareAndSwap(auth, replacing: previous)
    }

    /// Stores tokens and client, replacing the item in place. It takes no lock: `AuthManager` calls it holding
    /// ``itemLock(maximumWait:)``; other writers use ``signIn(_:)``.
    public func save(_ credentials: StoredCredentials) async throws {
        _ = try await write(credentials)
    }

    /// Stores the credentials of a sign-in or import, replacing whatever the item holds — an item this version
    /// cannot read included, the one write allowed to — under ``itemLock(maximumWait:)``, so that it is ordered with refreshes in
    /// every process: a refresh under way finishes first, and any later refresh starts from these credentials.
    ///
    /// Waits for the lock up to ``signInLockWait``: longer than a refresh holds it (its token request and keyring
    /// calls), so that credentials the user just obtained are not lost to a busy lock.
    /// - Returns: why the item it replaced could not be read, when it could not (to tell the user); else `nil`.
    @discardableResult
    public func signIn(_ credentials: StoredCredentials) async throws -> TokenAuthError? {
        try await replaceUnderLock(credentials)
    }

    /// How long ``signIn(_:)`` and ``delete()`` wait for a refresh in another process to release the item's lock.
    public static let signInLockWait = Duration.seconds(120)

    /// The lock every writer of this item takes: `AuthManager.forKeyringItem` refreshes under it, ``signIn(_:)``,
    /// ``delete()`` and `SignOut` write under it. An advisory `flock` in `$XDG_RUNTIME_DIR/tokenkeyring/`.
    public func itemLock(maximumWait: Duration = .seconds(30)) -> FileRefreshLock {
        sharedItemLock(maximumWait: maximumWait)
    }

    /// Deletes the item without taking its lock: what `AuthManager.signOut()` calls while holding it. Succeeds when
    /// there is none. Use ``delete()`` elsewhere.
    public func erase() async throws {
        _ = try await remove()
    }

    /// Deletes the item under ``itemLock(maximumWait:)``, so that a refresh under way in another process finishes first and
    /// never writes it back.
    /// - Returns: whether there was one.
    @discardableResult
    public func delete() async throws -> Bool {
        try await deleteUnderLock()
    }

    /// Stores `credentials` in the item, in place: the keyring keeps nothing aside.
    package func write(_ credentials: StoredCredentials) async throws -> String? {
        let text = try StoredBundleFormat.encode(credentials)
        try await keyring.store(text, label: label, attributes: attributes, in: collection)
        return nil
    }

    /// Deletes the item, taking no lock.
    package func remove() async throws -> Bool {
        try await keyring.delete(attributes) > 0
    }

    /// Every stored account of `service`, with its metadata (not its tokens).
    public static func accounts(of service: String, keyring: Keyring = Keyring()) async throws -> [KeyringItem] {
        try await keyring.items(matching: ["service": service])
            .filter { item in
                guard let account = item.attributes["account"] else { return false }
                return item.hasExactly(["service": service, "account": account])
            }
            .sorted { ($0.attributes["account"] ?? "") < ($1.attributes["account"] ?? "") }
    }
}
