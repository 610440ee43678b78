/// Something ``AuthManager`` did, for logging and UI. Events never carry a token.
public enum AuthEvent: Sendable, Equatable {
    /// How a refresh failed.
    public enum FailureKind: Sendable, Equatable {
        /// Network, timeout, 5xx, 429 or a malformed answer: the tokens were kept.
        case transient
        /// The server rejected the grant with this RFC 6749 error code: sign-in required.
        case permanent(oauthErrorCode: String?)
        /// Too many refreshes in the configured window.
        case excessiveRefresh
    }

    /// A request to the token endpoint is about to be sent.
    case refreshStarted
    /// New tokens arrived.
    case refreshSucceeded
    /// The refresh failed.
    case refreshFailed(FailureKind)
    /// The server issued a new refresh token, replacing the old one.
    case refreshTokenRotated
    /// Newer tokens, stored by another process, were taken from the store instead of refreshing.
    case adoptedFromStore
    /// Tokens were written to the store.
    case saved
    /// The answer of a refresh that could not store it — in this process or one that stopped — was found where it
    /// was kept (``RefreshJournal``) and stored.
    case keptAnswerStored
    /// Writing tokens to the store failed; they are kept (in memory, and a refresh's answer in its
    /// ``RefreshJournal``) and written again on the next call.
    ///
    /// `reason` is the error's type and code, such as `KeyringError.locked` — never its text, which may quote
    /// the store or a server.
    case saveFailed(reason: String)
    /// A refresh's write lost to another writer's (a sign-in or sign-out in another process): the refresh's tokens
    /// were not stored, and the store's version was taken instead.
    case writeSuperseded
    /// Tokens a refresh received and will never use (it lost to a sign-in or sign-out) were revoked at the server.
    case discardedTokensRevoked
    /// A refresh's `id_token` could not be checked just now; its tokens were kept and the check is pending.
    case identityCheckPending
    /// A pending identity check passed.
    case identityConfirmed
    /// A refresh's `id_token` proved another account, or could not be trusted, after the refresh token was spent:
    /// the session ended, and its entry says why.
    case sessionEnded
    /// The session ended: ``AuthManager/signOut()`` here, or the stored entry found removed or ended by another
    /// process.
    case loggedOut
}
