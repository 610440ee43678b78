import Foundation

/// An OAuth 2.0 token bundle: what an app needs to authorize requests and to renew that authorization.
///
/// `Auth` is a plain value. It knows nothing about how it is stored: stores translate it to and from
/// their own private formats. Its `description` never contains a token, so an `Auth` can be logged.
public struct Auth: Sendable, Equatable {
    /// The access token sent with each request.
    public var accessToken: String
    /// The token type from the token response, `Bearer` unless the server said otherwise.
    public var tokenType: String
    /// The refresh token, if the server issued one.
    public var refreshToken: String?
    /// When the access token stops being valid, or `nil` when the server did not say.
    public var expiresAt: Date?
    /// The scope the token was granted for, as the space-separated list of RFC 6749 §3.3.
    public var scope: String?
    /// When the access token was issued, as this client saw it (when its request was sent), or `nil` when unknown.
    /// With ``expiresAt`` it gives the token's lifetime, which bounds the refresh leeway
    /// (see ``refreshLeeway(atMost:)``).
    public var issuedAt: Date?
    /// Who signed in, when the tokens came with a validated OpenID Connect `id_token`; `nil` otherwise.
    ///
    /// It travels with the tokens: a refresh keeps it (``TokenResponse/auth(updating:)``), or replaces it only
    /// with an identity of the same account (``AuthManager/Configuration/identityCheck``), and stores write it with
    /// them. It is not a secret, but it is personal data: ``description`` does not show it.
    public var identity: Identity?

    /// Creates a token bundle.
    public init(
        accessToken: String,
        tokenType: String = "Bearer",
        refreshToken: String? = nil,
        expiresAt: Date? = nil,
        scope: String? = nil,
        issuedAt: Date? = nil,
        identity: Identity? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scope = scope
        self.issuedAt = issuedAt
        self.identity = identity
    }

    /// Whether the access token is still usable at `now` for at least `leeway` more.
    ///
    /// A token without a known expiry is treated as valid: only the server can reject it.
    public func isValid(at now: Date, leeway: Duration = .zero) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt.timeIntervalSince(now) > leeway.timeInterval
    }

    /// The leeway to refresh this token with: `leeway`, but at most half the token's lifetime when its lifetime is
    /// known (``issuedAt`` to ``expiresAt``).
    ///
    /// A token that lives 30 s, refreshed 60 s before it expires, would be refreshed on every use; bounded to 15 s,
    /// it is used for the first half of its life and refreshed once.
    ///
    /// Defined for any dates: a lifetime too long to count in milliseconds (far dates in an imported item) leaves
    /// `leeway` as it is, and one that is not positive or not a number does too.
    public func refreshLeeway(atMost leeway: Duration) -> Duration {
        guard let issuedAt, let expiresAt else { return leeway }
        let half = expiresAt.timeIntervalSince(issuedAt) / 2
        guard half > 0, let milliseconds = Int64(exactly: (half * 1000).rounded(.down)) else { return leeway }
        return min(leeway, .milliseconds(milliseconds))
    }

    /// Whether the token is valid at `now` for at least its ``refreshLeeway(atMost:)``: the test that decides
    /// whether to refresh before use.
    public func isFresh(at now: Date, leeway: Duration) -> Bool {
        isValid(at: now, leeway: refreshLeeway(atMost: leeway))
    }
}

extension Auth: CustomStringConvertible, CustomDebugStringConvertible {
    /// A description with every token redacted.
    public var description: String {
        var parts = ["tokenType: \(tokenType)", "accessToken: <redacted>"]
        parts.append("refreshToken: \(refreshToken == nil ? "none" : "<redacted>")")
        if let expiresAt { parts.append("expiresAt: \(expiresAt.formatted(.iso8601))") }
        if let scope { parts.append("scope: \(scope)") }
        return "Auth(\(parts.joined(separator: ", ")))"
    }

    /// The same redacted text as ``description``.
    public var debugDescription: String { description }
}

extension Duration {
    /// The duration in (fractional) seconds.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
