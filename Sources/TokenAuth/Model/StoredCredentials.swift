#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything one store entry holds: the tokens and, optionally, the client that can refresh them.
public struct StoredCredentials: Sendable, Equatable {
    /// The token bundle.
    public var auth: Auth
    /// The token endpoint and client identity used to refresh `auth`, when the entry records them.
    public var client: OAuthClient?
    /// When a refresh last stored these tokens, if the entry records it (`refreshed_at`); `nil` after a login or
    /// import, and for entries written by stores that do not record it.
    public var refreshedAt: Date?

    /// Who signed in, when the entry records it: the same value as `auth.identity`, which carries it through
    /// refreshes and stores.
    public var identity: Identity? {
        get { auth.identity }
        set { auth.identity = newValue }
    }

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - auth: The tokens.
    ///   - client: The client that refreshes them, when the entry records it.
    ///   - refreshedAt: When a refresh last stored them, if known.
    ///   - identity: Who signed in; when given, it replaces `auth.identity`. `nil` keeps `auth`'s.
    public init(auth: Auth, client: OAuthClient? = nil, refreshedAt: Date? = nil, identity: Identity? = nil) {
        self.auth = auth
        self.client = client
        self.refreshedAt = refreshedAt
        if let identity { self.auth.identity = identity }
    }
}
