extension OAuthTestServer {
    /// Counters of what the server has seen, read by tests directly or over HTTP at `GET /_admin/stats`.
    ///
    /// Requests to `/_admin/…` are not counted anywhere, so reading the counters does not change them.
    package struct Stats: Sendable, Equatable, Codable {
        /// Requests to the token endpoint, whatever their outcome.
        package var tokenRequests = 0
        /// `refresh_token` grant requests that reached the token endpoint, including those failed by faults.
        package var refreshGrants = 0
        /// Refresh grants answered with new tokens.
        package var successfulRefreshes = 0
        /// `client_credentials` grant requests that reached the token endpoint.
        package var clientCredentialsGrants = 0
        /// `password` grant requests that reached the token endpoint.
        package var passwordGrants = 0
        /// Refresh grants that presented a current refresh token issued less than a quarter of the access-token
        /// lifetime ago: its access token was still fresh, so no client needed the refresh (unless it was forced).
        package var earlyRefreshes = 0
        /// Presentations of an already-rotated refresh token, each of which revoked (or found revoked) its family.
        package var reuseDetections = 0
        /// Requests to `/resource` and below, whatever their outcome.
        package var resourceRequests = 0
        /// Requests to the revocation endpoint `/revoke`, whatever their outcome.
        package var revocationRequests = 0
        /// Revocation requests that revoked a live token (RFC 7009 answers 200 for unknown tokens too).
        package var revokedTokens = 0
        /// Successful client authentications at the token endpoint, by method: `none`, `client_secret_post`,
        /// `client_secret_basic`.
        package var clientAuthentications: [String: Int] = [:]
        /// Requests to the key set `/jwks`, whatever their outcome.
        package var jwksRequests = 0
        /// Requests to `/userinfo`, whatever their outcome.
        package var userinfoRequests = 0
        /// `id_token`s put into token responses.
        package var idTokensIssued = 0
        /// Token answers whose tokens are bound to a DPoP key (`token_type` `DPoP`, RFC 9449 §5).
        package var dpopBoundGrants = 0
        /// `use_dpop_nonce` answers of the token endpoint and the resource (RFC 9449 §8, §9).
        package var dpopNonceChallenges = 0
        /// `invalid_dpop_proof` answers of the token endpoint and the resource (RFC 9449 §5, §7.1).
        package var dpopProofRefusals = 0
        /// Responses sent, by HTTP status code.
        package var responsesByStatus: [Int: Int] = [:]

        /// Creates zeroed counters.
        package init() {}

        /// How many responses had the given status code.
        package func responses(withStatus code: Int) -> Int {
            responsesByStatus[code, default: 0]
        }
    }
}
