import Foundation
import TokenAuth

/// What ``KeyringAuthStore`` and ``FileAuthStore`` have in common: one entry per (service, account) holding the
/// stored format, the item's lock, and the rules that order every write with the other processes' — written once,
/// here, so that both stores keep them alike.
///
/// - A write never replaces what another process wrote after you read it: a refresh's write is a compare-and-swap
///   (``compareAndSwap(_:replacing:)``), and every writer of this package holds the item's lock around its write.
/// - A refresh token older than the stored one is never sent: `AuthManager` reads the entry again under the same
///   lock before it refreshes.
/// - Only an explicit write (a sign-in or import, ``replaceUnderLock(_:)``) replaces an entry this version cannot read.
package protocol CredentialsEntry: AuthStore {
    /// The service the tokens are for.
    var service: String { get }
    /// The account the tokens belong to.
    var account: String { get }
    /// The client written with the tokens; `nil` keeps the one the entry records.
    var client: OAuthClient? { get }
    /// When set, a write of an `Auth` records the time as `refreshed_at`.
    var wallClock: WallClock? { get }
    /// How errors name the entry, e.g. `service "S", account "A"`.
    var entry: String { get }

    /// The stored tokens and client, or `nil` when nothing is stored.
    func loadCredentials() async throws -> StoredCredentials?

    /// Writes `credentials` in place of whatever is stored, taking no lock.
    /// - Returns: where an entry that could not be read was kept instead of being overwritten, if the store keeps
    ///   such entries aside (the file store); else `nil`.
    func write(_ credentials: StoredCredentials) async throws -> String?

    /// Removes the entry, taking no lock. Succeeds when there is none.
    /// - Returns: whether there was one.
    func remove() async throws -> Bool
}

extension CredentialsEntry {
    /// The lock every writer of the entry takes — the same for the keyring item and the file of one (service,
    /// account): an advisory `flock` in `$XDG_RUNTIME_DIR/tokenkeyring/`.
    package func sharedItemLock(maximumWait: Duration) -> FileRefreshLock {
        FileRefreshLock(service: service, account: account, maximumWait: maximumWait)
    }

    /// Writes `auth` with ``client``; without one, with the client the entry records (an entry that cannot be read
    /// records none: saving is an explicit write of new tokens). With a ``wallClock``, records the time as
    /// `refreshed_at`.
    package func saveKeepingClient(_ auth: Auth) async throws {
        var client = self.client
        if client == nil {
            do {
                client = try await loadCredentials()?.client
            } catch let error as TokenAuthError where error.isUnreadableEntry {
                // An unreadable entry is replaced: saving is an explicit write of new tokens.
            }
            // Any other error (locked, timed out, a refused file) propagates: writing now would drop the client.
        }
        _ = try await write(StoredCredentials(auth: auth, client: client, refreshedAt: wallClock?()))
    }

    /// Writes refreshed tokens only if the entry still holds `previous` (`Auth.isSameVersion(as:)`): never creates an
    /// entry, never replaces one another writer changed since `previous` was read, never replaces one it cannot read.
    /// The caller holds the item's lock, which makes the comparison and the write one step for every writer of this
    /// package.
    /// - Throws: `TokenAuthError` `missing`, `superseded`, or the load's error (left untouched).
    package func compareAndSwap(_ auth: Auth, replacing previous: Auth) async throws {
        guard let stored = try await loadCredentials() else { throw TokenAuthError.missing(entry) }
        guard stored.auth.isSameVersion(as: previous) else { throw TokenAuthError.superseded(entry) }
        _ = try await write(StoredCredentials(auth: auth, client: client ?? stored.client, refreshedAt: wallClock?()))
    }

    /// Writes the credentials of a sign-in or import under the item's lock, replacing whatever the entry holds — an
    /// entry this version cannot read included, the one write allowed to — so that it is ordered with refreshes in
    /// every process: a refresh under way finishes first, and any later refresh starts from these credentials.
    /// - Returns: why the entry it replaced could not be read, and where it was kept when the store keeps it; `nil`
    ///   when it could be read or there was none.
    package func replaceUnderLock(_ credentials: StoredCredentials) async throws -> TokenAuthError? {
        try await sharedItemLock(maximumWait: KeyringAuthStore.signInLockWait).withLock {
            var unreadable: TokenAuthError?
            do {
                _ = try await loadCredentials()
            } catch let error as TokenAuthError where error.isUnreadableEntry {
                unreadable = error
            }
            let keptAt = try await write(credentials)
            guard let unreadable, let keptAt else { return unreadable }
            return TokenAuthError(
                unreadable.code, unreadable.reason + " It was kept aside as \(keptAt).", fix: unreadable.fix)
        }
    }

    /// Removes the entry under the item's lock, so that a refresh under way in another process finishes first and
    /// never writes it back.
    /// - Returns: whether there was one.
    package func deleteUnderLock() async throws -> Bool {
        try await sharedItemLock(maximumWait: KeyringAuthStore.signInLockWait).withLock {
            try await remove()
        }
    }
}

extension TokenAuthError {
    /// Whether this says a stored entry cannot be read by this version (damaged, or written by a newer one).
    package var isUnreadableEntry: Bool { code == .corrupt || code == .unsupportedVersion }
}

extension StoredCredentials {
    /// The access token when it can be handed out as stored — the session is live, no identity check is pending,
    /// and the token stays valid for `leeway` at `now`, as `AuthManager` decides — else `nil`.
    package func servableToken(at now: Date, leeway: Duration) -> String? {
        guard auth.isLive, auth.unverifiedIDToken == nil, auth.isFresh(at: now, leeway: leeway) else { return nil }
        return auth.accessToken
    }
}
