/// Everything one store entry holds: the tokens and, optionally, the client that can refresh them.
public struct StoredCredentials: Sendable, Equatable {
    /// The token bundle.
    public var auth: Auth
    /// The token endpoint and client identity used to refresh `auth`, when the entry records them.
    public var client: OAuthClient?

    /// Creates an entry.
    public init(auth: Auth, client: OAuthClient? = nil) {
        self.auth = auth
        self.client = client
    }
}
