extension AuthManager {
    /// What to do with stored credentials when the server rejects them for good (`invalid_grant` and the like).
    public enum RejectionPolicy: Sendable, Hashable {
        /// Keep the stored item (the default): nothing is deleted because of an error, and the user can still
        /// inspect it (`tokenctl show`). The manager remembers the rejection and asks for a login without
        /// asking the server again, until new credentials are stored.
        case keepStoredCredentials
        /// Erase the stored item, as a logout would.
        case eraseStoredCredentials
    }

    /// Tuning for ``AuthManager``. The defaults suit a desktop app.
    public struct Configuration: Sendable {
        /// Refresh when the access token expires within this time, so a request never leaves with a token
        /// that expires on the way. Default 60 s.
        public var leeway: Duration
        /// At most this many refreshes per ``refreshWindow``; more fail with ``AuthError/Code/excessiveRefresh``.
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
        /// ``IDTokenVerifier`` for the stored client); `nil` ignores refreshed `id_token`s and keeps the identity.
        ///
        /// Used only when the current tokens have an identity. Its ``IdentityCheck/prepare()`` runs before the
        /// refresh token is sent (fetching the issuer's keys), and a response with an `id_token` is adopted only when
        /// the token is valid and names the same issuer and subject. Otherwise nothing is stored or handed out, the
        /// stored item is left as it is whatever the ``rejectionPolicy``, and the refresh token is not sent again
        /// until new credentials arrive: an `id_token` for another account is ``AuthError/Code/loginRequired``
        /// (``IDTokenError/subjectChanged``), an invalid one ``AuthError/Code/misconfigured``, and keys that cannot
        /// be fetched just now ``AuthError/Code/transient`` (with backoff). ``AuthError/identityError`` says which.
        public var identityCheck: (any IdentityCheck)?

        /// Creates a configuration.
        public init(
            leeway: Duration = .seconds(60),
            refreshLimit: Int = 5,
            refreshWindow: Duration = .seconds(30),
            backoff: Backoff = Backoff(),
            rejectionPolicy: RejectionPolicy = .keepStoredCredentials,
            usesClientCredentials: Bool = false,
            scope: String? = nil,
            identityCheck: (any IdentityCheck)? = nil
        ) {
            self.leeway = leeway
            self.refreshLimit = refreshLimit
            self.refreshWindow = refreshWindow
            self.backoff = backoff
            self.rejectionPolicy = rejectionPolicy
            self.usesClientCredentials = usesClientCredentials
            self.scope = scope
            self.identityCheck = identityCheck
        }
    }
}
