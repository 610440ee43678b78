extension Auth {
    /// The `Authorization` header value that presents this access token: `Bearer <token>` for bearer tokens
    /// (RFC 6750 §2.1, whatever the case of the stored `token_type`), otherwise the stored token type followed by
    /// the token.
    ///
    /// It holds the token: never log it.
    public var authorizationHeaderValue: String {
        "\(TokenType.normalize(tokenType)) \(accessToken)"
    }
}
