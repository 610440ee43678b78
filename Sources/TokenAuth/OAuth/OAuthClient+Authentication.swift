import HTTPTypes

extension OAuthClient {
    /// How this client authenticates one form request to the authorization server — the token endpoint
    /// (RFC 6749 §2.3) or the revocation endpoint (RFC 7009 §2.1), which take the same client authentication.
    package struct FormAuthentication {
        /// Parameters to append to the form body.
        package var parameters: [(name: String, value: String)]
        /// The `Authorization` header value, for `client_secret_basic`.
        package var authorization: String?
    }

    /// The parameters and header that authenticate this client, or `nil` when ``authentication`` needs a client
    /// secret and none is stored.
    package var formAuthentication: FormAuthentication? {
        switch authentication {
        case .none:
            return FormAuthentication(parameters: [(name: "client_id", value: clientID)], authorization: nil)
        case .clientSecretPost:
            guard let clientSecret else { return nil }
            return FormAuthentication(
                parameters: [(name: "client_id", value: clientID), (name: "client_secret", value: clientSecret)],
                authorization: nil)
        case .clientSecretBasic:
            guard let clientSecret else { return nil }
            return FormAuthentication(
                parameters: [],
                authorization: FormEncoding.basicAuthorization(clientID: clientID, clientSecret: clientSecret))
        }
    }
}
