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
    /// Stores `auth`, replacing what was stored.
    func save(_ auth: Auth) async throws
}
