import Foundation

extension OAuthTestServer {
    /// Tokens issued directly by a test through ``OAuthTestServer/issueTokens(clientID:subject:scope:withRefreshToken:)``.
    package struct IssuedTokens: Sendable, Equatable {
        /// The access token.
        package var accessToken: String
        /// The refresh token, the first of a new family, when one was asked for.
        package var refreshToken: String?
        /// The granted scope.
        package var scope: String?
        /// When the access token expires by the server's clock.
        package var expiresAt: Date
    }
}
