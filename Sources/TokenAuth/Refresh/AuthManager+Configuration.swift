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

        /// Creates a configuration.
        public init(
            leeway: Duration = .seconds(60),
            refreshLimit: Int = 5,
            refreshWindow: Duration = .seconds(30),
            backoff: Backoff = Backoff(),
            rejectionPolicy: RejectionPolicy = .keepStoredCredentials,
            usesClientCredentials: Bool = false,
            scope: String? = nil
        ) {
            self.leeway = leeway
            self.refreshLimit = refreshLimit
            self.refreshWindow = refreshWindow
            self.backoff = backoff
            self.rejectionPolicy = rejectionPolicy
            self.usesClientCredentials = usesClientCredentials
            self.scope = scope
        }
    }
}
