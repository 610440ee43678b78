extension AuthManager {
    /// What to do with stored credentials when the server rejects them for good (`invalid_grant` and the like).
    public enum RejectionPolicy: Sendable, Hashable {
        /// Keep the stored item (the default): nothing is deleted because of an error, and the user can still
        /// inspect it (`tokenctl show`). After `invalid_grant` the item is written to say that a sign-in is required
        /// (``Auth/endReason``), without the refresh token, so that no process sends it again; after any other refusal
        /// the manager remembers it and asks for a sign-in without asking the server again, until new credentials are
        /// stored.
        case keepStoredCredentials
        /// Erase the stored item, as a logout would — only while it still holds the refused refresh token, read again
        /// under the lock: tokens another process stored meanwhile are not this refusal's to erase.
        case eraseStoredCredentials
    }

    /// Tuning for ``AuthManager``. The defaults suit a desktop app.
    public struct Configuration: Sendable {
        /// Refresh when the access token expires within this time, so a request never leaves with a token
        /// that expires on the way. Default 60 s; at most half a token's lifetime (``Auth/refreshLeeway(atMost:)``).
        public var leeway: Duration
        /// The least validity a caller waits for. Inside the ``leeway`` a token still valid for longer than this is
        /// handed out at once while the refresh runs beside it — a slow grant, or a keyring that does not answer, then
        /// holds no request; only a token closer to its expiry makes callers wait for the refresh. Default 5 s, and
        /// never more than the token's leeway.
        ///
        /// A process that ends after one call, such as a command-line tool, sets it to ``leeway``: every refresh
        /// within the leeway is then waited for, and none is left running when the process exits.
        public var minimumValidity: Duration
        /// At most this many refreshes per ``refreshWindow``; more fail with ``TokenAuthError/Code/excessiveRefresh``.
        /// Default 5.
        public var refreshLimit: Int
        /// The window of ``refreshLimit``. Default 30 s.
        public var refreshWindow: Duration
        /// The waits after transient failures.
        public var backoff: Backoff
        /// What happens to stored credentials after a permanent rejection.
        public var rejectionPolicy: RejectionPolicy
        /// Whether to use the `client_credentials` grant when there is no refresh token (or nothing stored).
        public var usesClientCredentials: Bool
        /// The scope to request, if any.
        public var scope: String?
        /// Checks the `id_token` of each refresh against the stored ``Auth/identity`` (usually an
        /// `IDTokenVerifier` for the stored client); `nil` ignores refreshed `id_token`s and keeps the identity.
        ///
        /// Used only when the current tokens have an identity. Its ``IdentityCheck/prepareCheck()`` runs before the
        /// refresh token is sent (fetching the issuer's keys); if that fails, nothing is sent: keys that cannot be
        /// fetched just now are transient (``TokenAuthError/Code/identityUnavailable``, with backoff), and a check that
        /// can never run stops the refresh (``TokenAuthError/Code/identityUntrusted``). Once the refresh token is
        /// spent, the answer is never lost:
        /// - an `id_token` valid for the same issuer and subject updates the identity;
        /// - one that cannot be checked just now (``TokenAuthError/Code/identityUnavailable``: keys unavailable, or a
        ///   new key the key set may not be fetched again for yet) leaves the check pending: the tokens are stored with it
        ///   (``Auth/unverifiedIDToken``) and handed out, and each later use tries the check again, after a backoff;
        /// - one that proves another account (``TokenAuthError/Code/identityMismatch``, OpenID Connect Core §12.2) or
        ///   cannot be trusted at all ends the session: nothing of the answer is used, its tokens are revoked (with a
        ///   ``TokenRevoker``), and the entry keeps who was signed in and why the session ended (``Auth/endReason``),
        ///   with no refresh token. The error is ``TokenAuthError/Code/sessionEnded``; its ``TokenAuthError/underlying`` says
        ///   why.
        public var identityCheck: (any IdentityCheck)?
        /// Whether a refresh whose answer the store did not take, even after a few tries, still hands out its tokens.
        ///
        /// The answer is kept (the manager's ``RefreshJournal``) either way, and the next use — here or in another
        /// process — stores it first. `true` (the default) suits an app that keeps running: its requests go on with
        /// the valid tokens while the keyring is away. A process that ends after one call, such as a command-line
        /// tool, sets `false`: the call then fails with ``TokenAuthError/Code/notStored``, which says where the answer
        /// is kept, and the tool never reports success while the only copy of a refresh token is in its memory.
        public var servesUnstoredTokens: Bool
        /// What is held while a refresh token is at stake, from the write ahead of a grant until its answer is stored
        /// (see ``RefreshWindowGuard``). TokenAuthKeyring's managers add a systemd-logind delay inhibitor.
        public var windowGuards: [any RefreshWindowGuard]
        /// Another process that runs each refresh, whose grant and store the death of this one cannot reach (see
        /// ``RefreshHost``); `nil` (the default) refreshes in this process.
        public var refreshHost: (any RefreshHost)?
        /// Proof of possession (DPoP, RFC 9449) for sessions whose tokens are bound to a key (``Auth/proofKey``): what
        /// the token client of a manager made for a stored item signs refreshes with, and what an ``AuthorizedClient``
        /// of this manager signs requests with unless it was given its own. `nil` (the default): such sessions fail
        /// with ``TokenAuthError/Code/proofKeyUnavailable`` before anything is sent.
        public var dpop: DPoP?

        /// Creates a configuration.
        public init(
            leeway: Duration = .seconds(60),
            minimumValidity: Duration = .seconds(5),
            refreshLimit: Int = 5,
            refreshWindow: Duration = .seconds(30),
            backoff: Backoff = Backoff(),
            rejectionPolicy: RejectionPolicy = .keepStoredCredentials,
            usesClientCredentials: Bool = false,
            scope: String? = nil,
            identityCheck: (any IdentityCheck)? = nil,
            servesUnstoredTokens: Bool = true,
            windowGuards: [any RefreshWindowGuard] = [],
            refreshHost: (any RefreshHost)? = nil,
            dpop: DPoP? = nil
        ) {
            self.leeway = leeway
            self.minimumValidity = minimumValidity
            self.refreshLimit = refreshLimit
            self.refreshWindow = refreshWindow
            self.backoff = backoff
            self.rejectionPolicy = rejectionPolicy
            self.usesClientCredentials = usesClientCredentials
            self.scope = scope
            self.identityCheck = identityCheck
            self.servesUnstoredTokens = servesUnstoredTokens
            self.windowGuards = windowGuards
            self.refreshHost = refreshHost
            self.dpop = dpop
        }
    }
}
