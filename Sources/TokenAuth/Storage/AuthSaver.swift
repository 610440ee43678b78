/// Persists a token bundle so that the next run of the app starts signed in.
///
/// ## Implementation requirements
/// - Replace atomically: a reader running at the same time sees the previous bundle or the new one,
///   never neither. A refresh that rotated the refresh token depends on it: losing the new bundle logs
///   the user out at the next start, since the old refresh token is spent.
/// - Throw when the write did not happen (a locked keyring, a timeout). Never swallow a failure: the
///   refresher then keeps the new tokens in memory and writes them again on its next call.
/// - Never delete what is stored because a write failed.
public protocol AuthSaver: Sendable {
    /// Stores `auth`, replacing what was stored: a sign-in, or an import the user asked for.
    func save(_ auth: Auth) async throws

    /// Stores `auth`, refreshed from what this store returned earlier, in place of it.
    ///
    /// A refresh is not a sign-in: it must neither bring back an entry that was removed since it was read (the
    /// user signed out in another process) nor overwrite an entry it cannot read (written by a newer version, or
    /// damaged) — only a sign-in may replace those.
    ///
    /// ## Implementation requirements
    /// - Throw ``AuthStoreError`` with code ``AuthStoreError/Code/missing`` when nothing is stored: create nothing.
    /// - Throw the ``AuthStoreError`` that ``AuthLoader/load()`` would throw when the entry cannot be read, and
    ///   leave it untouched.
    /// - Otherwise, as ``save(_:)``.
    ///
    /// The default implementation calls ``save(_:)``: a store that cannot tell keeps today's behaviour.
    func update(_ auth: Auth) async throws
}

extension AuthSaver {
    public func update(_ auth: Auth) async throws {
        try await save(auth)
    }
}
