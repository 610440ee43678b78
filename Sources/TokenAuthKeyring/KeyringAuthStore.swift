#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
///
/// Writes follow `CredentialsStore`'s order: a refresh's write is a compare-and-swap, and sign-ins
/// (`CredentialsStore.signIn(_:)`), deletes and refreshes all hold the item's lock.
public struct KeyringAuthStore: CredentialsStore {
    /// The service the tokens are for, e.g. the API's host name.
    public let service: String
    /// The account the tokens belong to.
    public let account: String
    /// The client stored with the tokens by `CredentialsStore.save(_:)`; `nil` keeps whatever client the item
    /// records.
    public let client: OAuthClient?
    /// The client ID the item's tokens must have been issued to, when set: an item that records another client is
    /// refused on every load with `TokenAuthError` `invalidClientConfiguration`, and never written over by
    /// ``update(_:replacing:)``, so that an app never sends tokens stored for another app. An item that records no
    /// client (a token stored by hand with `secret-tool`) is read. `nil` reads any item.
    public let expectedClientID: String?
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
    ///   - expectedClientID: the client ID the stored tokens must have been issued to (``expectedClientID``); `nil`
    ///     reads any item.
    public init(
        service: String,
        account: String,
        client: OAuthClient? = nil,
        keyring: Keyring = Keyring(),
        collection: KeyringCollection = .default,
        wallClock: WallClock? = nil,
        expectedClientID: String? = nil
    ) {
        self.service = service
        self.account = account
        self.client = client
        self.expectedClientID = expectedClientID
        self.keyring = keyring
        self.collection = collection
        self.wallClock = wallClock
    }

    /// The item's attributes: exactly these two.
    public var attributes: [String: String] { ["service": service, "account": account] }

    /// The item's label.
    public var label: String { "OAuth tokens for \(account) on \(service)" }

    var entry: String { entryName }

    /// The stored tokens and client, or `nil` when no item exists.
    /// - Throws: `KeyringError` (locked, unavailable, timed out) or `TokenAuthError` (unreadable item, left as it is;
    ///   `invalidClientConfiguration` when it records another client than ``expectedClientID``).
    public func loadCredentials() async throws -> StoredCredentials? {
        guard let found = try await keyring.lookup(attributes) else { return nil }
        let credentials = try StoredBundleFormat.decode(found.secret, entry: entry)
        if let expectedClientID, let stored = credentials.client?.clientID, stored != expectedClientID {
            throw TokenAuthError.anotherClient(entry, stored: stored, expected: expectedClientID)
        }
        return credentials
    }

    /// Stores tokens and client, replacing the item in place (the keyring keeps nothing aside). It takes no lock:
    /// `AuthManager` calls it holding `CredentialsStore.itemLock(maximumWait:)`; other writers use
    /// `CredentialsStore.signIn(_:)`.
    /// - Returns: `nil`.
    @discardableResult
    public func save(_ credentials: StoredCredentials) async throws -> String? {
        let text = try StoredBundleFormat.encode(credentials)
        try await keyring.store(text, label: label, attributes: attributes, in: collection)
        return nil
    }

    /// Deletes the item without taking its lock; use `CredentialsStore.delete()` elsewhere.
    /// - Returns: whether there was one.
    public func remove() async throws -> Bool {
        try await keyring.delete(attributes) > 0
    }

    /// The item's lock, in the user's runtime directory (`FileRefreshLock`'s default), named after the service and
    /// account.
    public func itemLock(maximumWait: Duration) -> FileRefreshLock {
        FileRefreshLock(service: service, account: account, maximumWait: maximumWait)
    }

    /// Where a refresh's answer is kept until the item holds it: beside the item's lock, in memory.
    public var refreshJournal: FileRefreshJournal {
        FileRefreshJournal(name: "keyring-" + FileRefreshLock.digest(service, account))
    }

    /// Every stored account of `service`, with its metadata (not its tokens).
    ///
    /// An item of a collection that gnome-keyring loaded locked from disk shows its attributes only hashed until the
    /// collection is unlocked: it is listed too, locked and without an `account` attribute
    /// (`KeyringItem.hashedAttributeNames` has `account`), so that a locked session is never taken for none.
    public static func accounts(of service: String, keyring: Keyring = Keyring()) async throws -> [KeyringItem] {
        try await keyring.items(matching: ["service": service])
            .filter { item in
                if let account = item.attributes["account"] { return item.hasExactly(["service": service, "account": account]) }
                return item.isLocked && item.hasExactly(["service": service], besidesHashed: ["account"])
            }
            .sorted { ($0.attributes["account"] ?? "") < ($1.attributes["account"] ?? "") }
    }
}
