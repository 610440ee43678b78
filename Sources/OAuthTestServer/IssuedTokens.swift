import Foundation

extension OAuthTestServer {
    /// Tokens issued directly by a test through ``OAuthTestServer/issueTokens(clientID:subject:scope:withRefreshToken:)``.
    public struct IssuedTokens: Sendable, Equatable {
        /// The access token.
        public var accessToken: String
        /// The refresh token, the first of a new family, when one was asked for.
        public var refreshToken: String?
        /// The granted scope.
        public var scope: String?
        /// When the access token expires by the server's clock.
        public var expiresAt: Date
    }
}
