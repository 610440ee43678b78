#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One (service, account) entry in the stored format — TokenAuthKeyring's `KeyringAuthStore` (a keyring item) or
/// TokenAuthFileStore's `FileAuthStore` (a file) — with the rules every writer follows when several processes share
/// it, written once for both:
///
/// - **A write never replaces what another process wrote after you read it.** A refresh's write is a
///   compare-and-swap (``AuthSaver/update(_:replacing:)``), and every writer of this package holds the item's lock
///   (``itemLock(maximumWait:)``) around its write, which makes the comparison and the write one step.
/// - **A refresh token older than the stored one is never sent.** `AuthManager` reads the entry again under the
///   same lock before it refreshes.
/// - **Only an explicit write replaces an entry this version cannot read**: a sign-in or import (``signIn(_:)``),
///   never a refresh.
///
/// ```swift
/// func storeSignIn(_ credentials: StoredCredentials, in store: some CredentialsStore) async throws {
///     if let unreadable = try await store.signIn(credentials) {
///         print("Replaced tokens that could not be read: \(unreadable.reason)")
///     }
/// }
/// ```
///
/// ## Implementation requirements
/// - ``loadCredentials()`` throws `TokenAuthError` `corrupt` or `unsupportedVersion` for an entry it cannot read,
///   and leaves it as it is; it returns `nil` only when nothing is stored.
/// - ``save(_:)-(StoredCredentials)`` replaces the entry atomically and takes no lock (the caller holds it).
/// - ``remove()`` takes no lock either, and succeeds when there is nothing to remove.
public protocol CredentialsStore: AuthStore {
    /// The service the tokens are for, e.g. the API's host name.
    var service: String { get }
    /// The account the tokens belong to.
    var account: String { get }
    /// The client stored with the tokens by ``save(_:)-(Auth)``; `nil` keeps whatever client the entry records.
    var client: OAuthClient? { get }
    /// When set, saving an `Auth` records the time as the entry's `refreshed_at`: give it to the store an
    /// `AuthManager` writes refreshed tokens to, so that tools reading the entry can say when the last refresh was.
    var wallClock: WallClock? { get }

    /// The stored tokens and client, or `nil` when nothing is stored.
    func loadCredentials() async throws -> StoredCredentials?

    /// Stores tokens and client in place of whatever the entry holds, atomically. It takes no lock: `AuthManager`
    /// calls it holding ``itemLock(maximumWait:)``; other writers use ``signIn(_:)``.
    /// - Returns: where an entry that could not be read was kept instead of being overwritten, by a store that keeps
    ///   such entries (`FileAuthStore`); else `nil`.
    @discardableResult
    func save(_ credentials: StoredCredentials) async throws -> String?

    /// Removes the entry without taking its lock: what `AuthManager.signOut()` calls, through ``AuthEraser/erase()``, while
    /// holding it. Succeeds when there is none; use ``delete()`` elsewhere.
    /// - Returns: whether there was one.
    func remove() async throws -> Bool

    /// The lock every writer of this entry takes, in every process: `AuthManager` refreshes under it, and
    /// ``signIn(_:)``, ``delete()`` and `SignOut` write under it. Derived from the entry and the user, never from the
    /// environment alone, so that processes with different environments exclude each other: the keyring item's lives
    /// in the user's runtime directory (`FileRefreshLock`), a file's in the file store's own directory.
    func itemLock(maximumWait: Duration) -> FileRefreshLock

    /// Where a refresh's answer is kept until this entry holds it (`AuthManager`'s `RefreshJournal`), shared by every
    /// process of the entry.
    var refreshJournal: FileRefreshJournal { get }
}

extension CredentialsStore {
    /// How long ``signIn(_:)``, ``delete()`` and ``SignOut`` wait for a refresh in another process to release the
    /// entry's lock: 120 s, longer than a refresh holds it (its token request and store calls), so that credentials
    /// the user just obtained are not lost to a busy lock.
    public static var signInLockWait: Duration { .seconds(120) }

    /// How errors name the entry.
    package var entryName: String { "service \"\(service)\", account \"\(account)\"" }

    /// The stored tokens, or `nil` when nothing is stored.
    public func load() async throws -> Auth? {
        try await loadCredentials()?.auth
    }

    /// Stores `auth` with this store's ``client``; without one, keeps the client the entry records (an entry that
    /// cannot be read records none: saving is an explicit write of new tokens). With a ``wallClock``, also records
    /// the time as `refreshed_at`.
    public func save(_ auth: Auth) async throws {
        var client = self.client
        if client == nil {
            do {
                client = try await loadCredentials()?.client
            } catch let error as TokenAuthError where error.isUnreadableEntry {
                // An unreadable entry is replaced: saving is an explicit write of new tokens.
            }
            // Any other error (locked, timed out, a refused file) propagates: writing now would drop the client.
        }
        try await save(StoredCredentials(auth: auth, client: client, refreshedAt: wallClock?()))
    }

    /// Stores refreshed tokens in place of the version they were refreshed from (what `AuthManager` writes after a
    /// refresh), keeping the entry's client unless this store has one, and recording the time with a ``wallClock``.
    ///
    /// A compare-and-swap: it writes only if the entry still holds `previous` (`Auth.isSameVersion(as:)`). It never
    /// creates an entry, never replaces one another writer changed since `previous` was read (a sign-in elsewhere
    /// wins), and never replaces one it cannot read (written by a newer version, or damaged). Neither the Secret
    /// Service nor a file has a conditional write, so the comparison and the write are two steps: `AuthManager` makes
    /// them one by holding the item's lock (``itemLock(maximumWait:)``), which every writer of this package takes.
    /// - Throws: `TokenAuthError` — `missing` when nothing is stored, `superseded` when another version is,
    ///   `corrupt` or `unsupportedVersion` when the entry cannot be read (left untouched); the store's own errors.
    public func update(_ auth: Auth, replacing previous: Auth) async throws {
        guard let stored = try await loadCredentials() else { throw TokenAuthError.missing(entryName) }
        guard stored.auth.isSameVersion(as: previous) else { throw TokenAuthError.superseded(entryName) }
        try await save(StoredCredentials(auth: auth, client: client ?? stored.client, refreshedAt: wallClock?()))
    }

    /// Marks the stored tokens as refreshing (`Auth.refreshStartedAt`), in place of `stored` only — the write ahead of
    /// a refresh grant — keeping the client and the time of the last refresh that the entry records.
    /// - Throws: as ``AuthSaver/update(_:replacing:)``.
    public func markRefreshStarted(_ stored: Auth, at date: Date) async throws {
        guard let current = try await loadCredentials() else { throw TokenAuthError.missing(entryName) }
        guard current.auth.isSameVersion(as: stored) else { throw TokenAuthError.superseded(entryName) }
        var marked = current
        marked.auth.refreshStartedAt = date
        try await save(marked)
    }

    /// Stores the credentials of a sign-in or import, replacing whatever the entry holds — an entry this version
    /// cannot read included, the one write allowed to — under ``itemLock(maximumWait:)``, so that it is ordered with
    /// refreshes in every process: a refresh under way finishes first, and any later refresh starts from these
    /// credentials.
    ///
    /// Waits for the lock up to ``signInLockWait``.
    /// - Returns: why the entry it replaced could not be read, and where it was kept when the store keeps such
    ///   entries, when it could not (to tell the user); else `nil`.
    @discardableResult
    public func signIn(_ credentials: StoredCredentials) async throws -> TokenAuthError? {
        try await itemLock(maximumWait: Self.signInLockWait).withLock {
            var unreadable: TokenAuthError?
            do {
                _ = try await loadCredentials()
            } catch let error as TokenAuthError where error.isUnreadableEntry {
                unreadable = error
            }
            let keptAt = try await save(credentials)
            guard let unreadable, let keptAt else { return unreadable }
            return TokenAuthError(
                unreadable.code, unreadable.reason + " It was kept aside as \(keptAt).", fix: unreadable.fix)
        }
    }

    /// ``itemLock(maximumWait:)`` with a 30 s wait.
    public func itemLock() -> FileRefreshLock {
        itemLock(maximumWait: .seconds(30))
    }

    /// Removes the entry without taking its lock (see ``remove()``). Succeeds when there is none.
    public func erase() async throws {
        _ = try await remove()
    }

    /// Removes the entry under ``itemLock(maximumWait:)``, so that a refresh under way in another process finishes
    /// first and never writes it back, and with it the answer a refresh kept for it (``refreshJournal``), which holds
    /// the session's newest tokens. Revokes nothing: ``SignOut`` does.
    /// - Returns: whether there was an entry.
    @discardableResult
    public func delete() async throws -> Bool {
        try await itemLock(maximumWait: Self.signInLockWait).withLock {
            let removed = try await remove()
            try? refreshJournal.discard()
            return removed
        }
    }
}

extension StoredCredentials {
    /// The access token when it can be handed out as stored — the session is live, no identity check is pending,
    /// and the token stays valid for `leeway` at `now`, as `AuthManager` decides — else `nil`.
    /// A token marked as refreshing (`Auth.refreshStartedAt`) is not: its refresh may have kept an answer that must be
    /// stored first, under the lock.
    package func servableToken(at now: Date, leeway: Duration) -> String? {
        guard auth.isLive, auth.unverifiedIDToken == nil, auth.refreshStartedAt == nil,
            auth.isFresh(at: now, leeway: leeway)
        else { return nil }
        return auth.accessToken
    }
}

/// What a read of a stored entry on the calling thread found, for a command-line tool's first read before it starts
/// any task (`KeyringAuthStore.freshTokenBlocking(at:leeway:)`, `FileAuthStore.freshTokenBlocking(at:leeway:)`): a
/// token to hand out as stored, an entry that needs an `AuthManager`, or no entry at all (where such a tool looks
/// next).
package enum BlockingTokenLookup: Sendable, Equatable {
    /// The stored access token, fresh as stored.
    case fresh(String)
    /// An entry that needs more than a read: a refresh, a prompt, a check, or it cannot be read.
    case needsManager
    /// No entry.
    case absent

    /// What `credentials` read from an entry (`nil`: there was none) give at `now`. A DPoP token (`Auth.isDPoPBound`)
    /// needs a manager too: it is useless without its key's proofs, and the tools that hand it out say so.
    package init(_ credentials: StoredCredentials?, at now: Date, leeway: Duration) {
        guard let credentials else {
            self = .absent
            return
        }
        guard !credentials.auth.isDPoPBound else {
            self = .needsManager
            return
        }
        self = credentials.servableToken(at: now, leeway: leeway).map(Self.fresh) ?? .needsManager
    }
}

