#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// An OpenID Connect `id_token` that came with these tokens and could not be checked against ``identity`` yet,
    /// because the issuer's keys could not be had just then; `nil` when there is nothing to check.
    ///
    /// A refresh that rotated the refresh token cannot be undone, so its tokens are kept even when their `id_token`
    /// cannot be checked at once: the check is *pending*, and ``AuthManager`` tries it again on each use until it
    /// passes (the token is cleared) or proves another account (the session ends, see ``endReason``). It is a
    /// credential: never shown in ``description`` and never logged.
    public var unverifiedIDToken: String?
    /// Why this session ended although its entry was kept, or `nil` for a live session.
    ///
    /// Set when a refresh answered for another account (OpenID Connect Core §12.2) after the old refresh token was
    /// already spent: the entry keeps who was signed in and why the session ended, so that people and tools can see
    /// what happened, and holds no refresh token that could be sent again. ``AuthManager`` never hands out an ended
    /// bundle: it reports ``TokenAuthError/isLoginRequired`` with this reason until a sign-in replaces it.
    public var endReason: String?
    /// When the refresh token expires, when the server said so (GitHub's `refresh_token_expires_in`); `nil` when
    /// unknown. Shown, so that people know when a new sign-in will be needed.
    public var refreshTokenExpiresAt: Date?
    /// When a refresh of these tokens started — its refresh token about to be sent — and its answer has not been
    /// stored since; `nil` otherwise.
    ///
    /// ``AuthManager`` writes it in place of the stored tokens, under the item's lock, before it sends a refresh
    /// grant: the write ahead of the point of no return, which proves that the store can take the answer (a store that
    /// cannot be written fails the call before anything is spent). The answer's write clears it. Found set later, it
    /// says that the refresh token *may* have been spent — the process stopped, or the answer was lost in transit —
    /// so tools can tell the truth about the session, and the next manager first looks for the answer where it was
    /// kept (``RefreshJournal``). Not part of the version (``isSameVersion(as:)``): it marks tokens, it does not
    /// change them.
    public var refreshStartedAt: Date?
    /// The key the tokens are bound to (DPoP, RFC 9449), or `nil` for bearer tokens.
    ///
    /// Made at sign-in and kept with the tokens: every refresh of them carries a proof from it, and so does every
    /// request with a `DPoP` ``tokenType``. A refresh keeps it (``TokenResponse/auth(updating:)``). Its material can be
    /// a secret: ``description`` shows only its kind and thumbprint.
    public var proofKey: ProofKey?

    /// Creates a token bundle.
    public init(
        accessToken: String,
        tokenType: String = "Bearer",
        refreshToken: String? = nil,
        expiresAt: Date? = nil,
        scope: String? = nil,
        issuedAt: Date? = nil,
        identity: Identity? = nil,
        unverifiedIDToken: String? = nil,
        endReason: String? = nil,
        refreshTokenExpiresAt: Date? = nil,
        refreshStartedAt: Date? = nil,
        proofKey: ProofKey? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scope = scope
        self.issuedAt = issuedAt
        self.identity = identity
        self.unverifiedIDToken = unverifiedIDToken
        self.endReason = endReason
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.refreshStartedAt = refreshStartedAt
        self.proofKey = proofKey
    }

    /// Whether the access token is sent as a DPoP token (``tokenType`` `DPoP`, in any case), with a proof from
    /// ``proofKey``.
    public var isDPoPBound: Bool { tokenType.lowercased() == "dpop" }

    /// Whether `other` is the same version of the session: the same tokens, the same pending `id_token` and the same
    /// end. What a write compares against what it read (``AuthSaver/update(_:replacing:)``), so that a bundle
    /// another process wrote meanwhile is never replaced. Expiry dates are not compared: stores may keep them to
    /// the second only; nor is ``refreshStartedAt``, a mark on the same tokens.
    public func isSameVersion(as other: Auth) -> Bool {
        accessToken == other.accessToken && refreshToken == other.refreshToken
            && unverifiedIDToken == other.unverifiedIDToken && endReason == other.endReason
    }

    /// Whether this bundle may be handed out: it has not ended (``endReason`` is `nil`).
    public var isLive: Bool { endReason == nil }

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

    /// Whether this token, inside the refresh leeway at `now`, may still be handed out while a refresh runs beside it:
    /// it is valid for longer than `minimumValidity`, itself at most the token's leeway (``refreshLeeway(atMost:)``).
    func servesBesideRefresh(at now: Date, leeway: Duration, minimumValidity: Duration) -> Bool {
        isValid(at: now, leeway: min(minimumValidity, refreshLeeway(atMost: leeway)))
    }
}

extension Auth: CustomStringConvertible, CustomDebugStringConvertible {
    /// A description with every token redacted.
    public var description: String {
        var parts = ["tokenType: \(tokenType)", "accessToken: <redacted>"]
        parts.append("refreshToken: \(refreshToken == nil ? "none" : "<redacted>")")
        if let expiresAt { parts.append("expiresAt: \(expiresAt.formatted(.iso8601))") }
        if let refreshTokenExpiresAt { parts.append("refreshTokenExpiresAt: \(refreshTokenExpiresAt.formatted(.iso8601))") }
        if let scope { parts.append("scope: \(scope)") }
        if unverifiedIDToken != nil { parts.append("identityCheck: pending") }
        if endReason != nil { parts.append("ended") }
        if let refreshStartedAt { parts.append("refreshStartedAt: \(refreshStartedAt.formatted(.iso8601))") }
        if let proofKey { parts.append("proofKey: \(proofKey.kind) \(proofKey.thumbprint)") }
        return "Auth(\(parts.joined(separator: ", ")))"
    }

    /// The same redacted text as ``description``.
    public var debugDescription: String { description }
}

extension Duration {
    /// The duration in (fractional) seconds.
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
