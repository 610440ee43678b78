import Foundation
import TokenAuth

/// What can be shown about stored credentials without showing a token or secret.
package struct CredentialsSummary: Sendable, Equatable, Encodable {
    /// The service the tokens are for.
    let service: String
    /// The account they belong to.
    let account: String
    /// The token type, e.g. `Bearer`.
    let tokenType: String
    /// When the access token expires, if known.
    let expiresAt: Date?
    /// Whether the access token had expired at the time of the summary.
    let isExpired: Bool
    /// Seconds until expiry at the time of the summary (negative once expired); `nil` without a known expiry.
    let expiresInSeconds: Int?
    /// The granted scope.
    let scope: String?
    /// Whether a refresh token is stored.
    let hasRefreshToken: Bool
    /// When the refresh token expires, if the server said.
    let refreshTokenExpiresAt: Date?
    /// The token endpoint recorded with the tokens.
    let tokenEndpoint: URL?
    /// The client id recorded with the tokens.
    let clientID: String?
    /// Whether a client secret is stored.
    let hasClientSecret: Bool
    /// The RFC 7009 revocation endpoint used on logout, if recorded.
    let revocationEndpoint: URL?
    /// When a refresh last stored the tokens, if recorded.
    let refreshedAt: Date?
    /// Seconds since ``refreshedAt`` at the time of the summary.
    let secondsSinceRefresh: Int?
    /// The issuer the endpoints were discovered from, if recorded.
    let issuer: URL?
    /// Who signed in, if recorded (an OpenID Connect sign-in).
    let identity: IdentitySummary?
    /// Whether the `id_token` of the last refresh still waits to be checked against ``identity``.
    let identityCheckPending: Bool
    /// Why the session ended although the item was kept (then a sign-in is required), if it did.
    let endReason: String?
    /// When a refresh started whose answer was not stored since: its refresh token may have been spent.
    let refreshStartedAt: Date?
    /// The DPoP key the tokens are bound to: its thumbprint and where it lives, never the key.
    let dpop: DPoPSummary?

    /// A DPoP key: its RFC 7638 thumbprint (the tokens' `cnf.jkt`), whether it is in the TPM, and whether the server
    /// bound the stored tokens to it (it answered with `DPoP` tokens).
    struct DPoPSummary: Sendable, Equatable, Encodable {
        let jkt: String
        let inTPM: Bool
        let tokensBound: Bool

        enum CodingKeys: String, CodingKey {
            case jkt, inTPM = "in_tpm", tokensBound = "tokens_bound"
        }

        /// "jkt=…, in the TPM", and when the server answered with bearer tokens, that it did.
        var text: String {
            let place = "jkt=\(jkt), " + (inTPM ? "in the TPM" : "stored in the item")
            return tokensBound ? place : place + "; the server answered with Bearer tokens, not bound to it"
        }
    }

    /// Who signed in: the identity's issuer, subject and display name.
    struct IdentitySummary: Sendable, Equatable, Encodable {
        let issuer: URL
        let subject: String
        let displayName: String?

        enum CodingKeys: String, CodingKey {
            case issuer, subject = "sub", displayName = "display_name"
        }
    }

    /// Summarises `credentials` as of `now`.
    package init(service: String, account: String, credentials: StoredCredentials, now: Date) {
        let auth = credentials.auth
        self.service = service
        self.account = account
        tokenType = auth.tokenType
        expiresAt = auth.expiresAt
        expiresInSeconds = auth.expiresAt.map { Self.wholeSeconds($0.timeIntervalSince(now)) }
        isExpired = !auth.isValid(at: now)
        scope = auth.scope
        hasRefreshToken = auth.refreshToken != nil
        refreshTokenExpiresAt = auth.refreshToken == nil ? nil : auth.refreshTokenExpiresAt
        tokenEndpoint = credentials.client?.tokenEndpoint
        clientID = credentials.client?.clientID
        hasClientSecret = credentials.client?.clientSecret != nil
        revocationEndpoint = credentials.client?.revocationEndpoint
        refreshedAt = credentials.refreshedAt
        secondsSinceRefresh = credentials.refreshedAt.map { max(0, Self.wholeSeconds(now.timeIntervalSince($0))) }
        issuer = credentials.client?.issuer ?? credentials.identity?.issuer
        identity = credentials.identity.map {
            IdentitySummary(
                issuer: $0.issuer, subject: ServerText.printable($0.subject),
                displayName: $0.displayName.map(ServerText.printable))
        }
        identityCheckPending = auth.unverifiedIDToken != nil
        endReason = auth.endReason
        refreshStartedAt = auth.refreshStartedAt
        dpop = auth.proofKey.map { DPoPSummary(jkt: $0.thumbprint, inTPM: $0.kind == .tpm, tokensBound: auth.isDPoPBound) }
    }

    /// "a refresh started 3 min ago was not stored: …", or `nil` when no refresh is outstanding.
    var interruptedRefresh: String? {
        refreshStartedAt.map {
            let local = $0.formatted(date: .abbreviated, time: .standard)
            return "a refresh started \(local) and its answer was not stored: the refresh token may have been spent; "
                + "the next use looks for the answer kept in memory and stores it, or tries the refresh token once more"
        }
    }

    /// "signed in as ada@example.com (https://auth.example.com)": the display name, else the subject, and the
    /// issuer; `nil` without an identity.
    var signedInAs: String? {
        identity.map {
            "\(endReason == nil ? "signed in" : "was signed in") as \($0.displayName ?? $0.subject) (\($0.issuer.absoluteString))"
        }
    }

    /// "expires in 4 min", "expired 3 h 2 min ago", or "no expiry recorded".
    package var relativeExpiry: String {
        guard let seconds = expiresInSeconds else { return "no expiry recorded" }
        return seconds > 0 ? "expires in \(Self.span(seconds))" : "expired \(Self.span(-seconds)) ago"
    }

    /// "3 min ago", or "never recorded" when no refresh time is stored.
    var relativeRefresh: String {
        guard let seconds = secondsSinceRefresh else { return "never recorded" }
        return "\(Self.span(seconds)) ago"
    }

    /// `interval` rounded down to whole seconds, saturated at ±`Int.max`: the dates come from the item, which
    /// any tool may have written, and a far one must not trap (`Int(_:)` of a `Double` does when out of range).
    /// A span that is not a number counts as 0.
    static func wholeSeconds(_ interval: TimeInterval) -> Int {
        let seconds = interval.rounded(.down)
        guard !seconds.isNaN else { return 0 }
        return Int(exactly: seconds) ?? (seconds > 0 ? Int.max : -Int.max)
    }

    static func span(_ seconds: Int) -> String {
        if seconds < 60 { return "\(seconds) s" }
        let minutes = seconds / 60
        if minutes < 60 { return "\(minutes) min" }
        let hours = minutes / 60
        if hours < 48 { return minutes % 60 == 0 ? "\(hours) h" : "\(hours) h \(minutes % 60) min" }
        return "\(hours / 24) days"
    }

    enum CodingKeys: String, CodingKey {
        case service, account, scope
        case tokenType = "token_type", expiresAt = "expires_at", isExpired = "expired"
        case expiresInSeconds = "expires_in_seconds", hasRefreshToken = "has_refresh_token"
        case refreshTokenExpiresAt = "refresh_token_expires_at"
        case tokenEndpoint = "token_endpoint", clientID = "client_id", hasClientSecret = "has_client_secret"
        case revocationEndpoint = "revocation_endpoint", refreshedAt = "refreshed_at"
        case secondsSinceRefresh = "seconds_since_refresh"
        case issuer, identity
        case identityCheckPending = "identity_check_pending", endReason = "ended"
        case refreshStartedAt = "refresh_started_at", dpop
    }
}
