#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Persists a token bundle so that the next run of the app starts signed in.
///
/// ## Implementation requirements
/// - Replace atomically: a reader running at the same time sees the previous bundle or the new one,
///   never neither. A refresh that rotated the refresh token depends on it: losing the new bundle logs
///   the user out at the next start, since the old refresh token is spent.
/// - Throw when the write did not happen (a locked keyring, a timeout). Never swallow a failure: the
///   refresher then keeps the new tokens in memory and writes them again on its next call.
/// - Never delete what is stored because a write failed.
///
/// Several processes may share what a store holds. ``AuthManager`` orders its writes with theirs by holding its
/// ``RefreshLock`` around each one, and makes each refresh's write conditional (``update(_:replacing:)``), so a
/// writer that does not take the lock (a person with `secret-tool`, say) is never overwritten by an older refresh.
public protocol AuthSaver: Sendable {
    /// Stores `auth`, replacing whatever was stored: a sign-in, or an import the user asked for.
    func save(_ auth: Auth) async throws

    /// Stores `auth`, refreshed from `previous`, only if the store still holds `previous`: a compare-and-swap.
    ///
    /// A refresh is not a sign-in. Its result must not replace a bundle written after the refresh read `previous`
    /// (a sign-in wins over an older refresh), bring back an entry that was removed since (a sign-out stays), or
    /// overwrite an entry it cannot read (written by a newer version, or damaged) — only a sign-in may replace those.
    ///
    /// ## Implementation requirements
    /// - Throw ``TokenAuthError`` with code ``TokenAuthError/Code/missing`` when nothing is stored: create nothing.
    /// - Throw ``TokenAuthError`` with code ``TokenAuthError/Code/superseded`` when what is stored is not the same
    ///   version as `previous` (``Auth/isSameVersion(as:)``): write nothing.
    /// - Throw the ``TokenAuthError`` that ``AuthLoader/load()`` would throw when the entry cannot be read, and
    ///   leave it untouched.
    /// - Otherwise, as ``save(_:)``. Compare and write as one step where the store can; where it cannot (the Secret
    ///   Service has no conditional write), keep the two as close as possible: the caller's lock covers the rest.
    ///
    /// Stores that can also load get an implementation that loads, compares and saves.
    func update(_ auth: Auth, replacing previous: Auth) async throws

    /// Records in place of `stored`, before ``AuthManager`` sends its refresh token, that a refresh of it started at
    /// `date` (``Auth/refreshStartedAt``): the write ahead of the grant.
    ///
    /// Sending a refresh token is the step that cannot be undone — with rotation the server retires it as it answers —
    /// so the store first proves that it takes a write: a locked keyring, a store that is gone or a read-only disk fails
    /// here, and nothing is spent. What it writes also tells the next reader, should this process stop before the
    /// answer is stored, that the refresh token may have been spent.
    ///
    /// ## Implementation requirements
    /// - As ``update(_:replacing:)``: write only in place of `stored` (``Auth/isSameVersion(as:)``, which ignores the
    ///   mark); throw ``TokenAuthError`` `missing` or `superseded` otherwise; throw when the write did not happen.
    /// - Keep everything else the entry records as it is (a record of the last refresh's time, the client).
    ///
    /// The default implementation writes `stored` with the mark through ``update(_:replacing:)``.
    func markRefreshStarted(_ stored: Auth, at date: Date) async throws
}

extension AuthSaver {
    public func markRefreshStarted(_ stored: Auth, at date: Date) async throws {
        var marked = stored
        marked.refreshStartedAt = date
        try await update(marked, replacing: stored)
    }
}

extension AuthSaver where Self: AuthLoader {
    /// Loads, compares with `previous` and saves: the compare-and-swap of ``AuthSaver/update(_:replacing:)`` for a
    /// store that has no conditional write of its own. Run it under the ``RefreshLock`` every writer takes, as
    /// ``AuthManager`` does, so that nothing is written between the load and the save.
    public func update(_ auth: Auth, replacing previous: Auth) async throws {
        guard let stored = try await load() else { throw TokenAuthError.missing("the store") }
        guard stored.isSameVersion(as: previous) else { throw TokenAuthError.superseded("the store") }
        try await save(auth)
    }
}
