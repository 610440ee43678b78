extension OAuthTestServer {
    /// Counters of what the server has seen, read by tests directly or over HTTP at `GET /_admin/stats`.
    ///
    /// Requests to `/_admin/…` are not counted anywhere, so reading the counters does not change them.
    public struct Stats: Sendable, Equatable, Codable {
        /// Requests to the token endpoint, whatever their outcome.
        public var tokenRequests = 0
        /// `refresh_token` grant requests that reached the token endpoint, including those failed by faults.
        public var refreshGrants = 0
        /// Refresh grants answered with new tokens.
        public var successfulRefreshes = 0
        /// `client_credentials` grant requests that reached the token endpoint.
        public var clientCredentialsGrants = 0
        /// `password` grant requests that reached the token endpoint.
        public var passwordGrants = 0
        /// Refresh grants that presented a current refresh token issued less than a quarter of the access-token
        /// lifetime ago: its access token was still fresh, so no client needed the refresh (unless it was forced).
        public var earlyRefreshes = 0
        /// Presentations of an already-rotated refresh token, each of which revoked (or found revoked) its family.
        public var reuseDetections = 0
        /// Requests to `/resource` and below, whatever their outcome.
        public var resourceRequests = 0
        /// Requests to the revocation endpoint `/revoke`, whatever their outcome.
        public var revocationRequests = 0
        /// Revocation requests that revoked a live token (RFC 7009 answers 200 for unknown tokens too).
        public var revokedTokens = 0
        /// Successful client authentications at the token endpoint, by method: `none`, `client_secret_post`,
        /// `client_secret_basic`.
        public var clientAuthentications: [String: Int] = [:]
        /// Requests to the key set `/jwks`, whatever their outcome.
        public var jwksRequests = 0
        /// Requests to `/userinfo`, whatever their outcome.
        public var userinfoRequests = 0
        /// `id_token`s put into token responses.
        public var idTokensIssued = 0
        /// Responses sent, by HTTP status code.
        public var responsesByStatus: [Int: Int] = [:]

        /// Creates zeroed counters.
        public init() {}

        /// How many responses had the given status code.
        public func responses(withStatus code: Int) -> Int {
            responsesByStatus[code, default: 0]
        }
    }
}
