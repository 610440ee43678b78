#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// Every failure of `TokenAuth`: the token and revocation endpoints, HTTP, the session ``AuthManager`` keeps, the
/// store, authorized requests and the refresh lock — one type, with a stable ``code``.
///
/// ```swift
/// do {
///     let profile = try await api.load(Profile.self, from: url)
///     show(profile)
/// } catch let error as TokenAuthError where error.isLoginRequired {
///     showSignIn(because: error.reason)
/// } catch let error as TokenAuthError where error.isTransient {
///     retry(after: error.retryAfter)
/// }
/// ```
///
/// ``reason`` says what happened and ``fix`` what to do, in sentences written for a person; ``description`` is both.
/// ``underlying`` is the cause, when there is one: the token endpoint's refusal behind a session that needs a sign-in,
/// the transport's failure behind an unreachable endpoint, an identity check's own error. No text of it contains a
/// token, secret or password: server text is cleaned and any of the request's secrets it echoed is `<redacted>`.
///
/// Compare codes (`error.code == .rejected`), or the error with the static members (`error == .invalidGrant`):
/// equality looks at the code, and for ``Code/rejected`` at the OAuth `error` too.
public struct TokenAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed.
    public let code: Code
    /// What happened, in a sentence or two; never a secret.
    public let reason: String
    /// What to do about it.
    public let fix: String
    /// The cause, when there is one.
    public let underlying: (any Error & Sendable)?
    /// The server's OAuth error answer, for ``Code/rejected`` (and transient refusals such as `slow_down`).
    public let oauthError: OAuthErrorResponse?
    /// How long to wait before asking again: the server's `Retry-After` (at most ``maximumRetryAfter``), or the
    /// backoff of ``AuthManager``.
    public let retryAfter: Duration?
    /// The HTTP status of the answer behind the failure, when there was one.
    public let statusCode: Int?
    /// For authorized requests: the resource's RFC 6750 challenge (its `Bearer` one, else its first).
    public let challenge: AuthenticationChallenge?
    /// For authorized requests: the response body, when one arrived.
    public let body: Data?

    /// The longest wait taken from a `Retry-After` header: 1 hour. A longer one, in seconds or as a date, is clamped
    /// to it where the header is read, so a misconfigured or hostile server cannot park a client for a year.
    public static let maximumRetryAfter = Duration.seconds(3600)

    package init(
        _ code: Code, _ reason: String, fix: String, underlying: (any Error & Sendable)? = nil,
        oauthError: OAuthErrorResponse? = nil, retryAfter: Duration? = nil, statusCode: Int? = nil,
        challenge: AuthenticationChallenge? = nil, body: Data? = nil
    ) {
        self.code = code
        self.reason = reason
        self.fix = fix
        self.underlying = underlying
        self.oauthError = oauthError
        self.retryAfter = retryAfter
        self.statusCode = statusCode
        self.challenge = challenge
        self.body = body
    }

    /// What happened, what the server said, how long it asked to wait, and what to do.
    public var description: String {
        var text = reason
        if let said = oauthError?.errorDescription, !said.isEmpty { text += " The server said: \"\(said)\"." }
        if let retryAfter, code != .backingOff {
            let (seconds, attoseconds) = retryAfter.components
            text += " Retry after \(seconds + (attoseconds > 0 ? 1 : 0)) s."
        }
        return text + " " + fix
    }

    /// The OAuth `error` code of a refusal, such as `invalid_grant`.
    public var oauthErrorCode: String? { oauthError?.error }

    // MARK: - What to do

    /// Whether the user has to sign in (again): nothing is stored, the session was signed out or ended, or the
    /// server refused the credentials. Show the sign-in screen.
    public var isLoginRequired: Bool {
        [.rejected, .noCredentials, .signedOut, .sessionEnded, .identityMismatch].contains(code)
    }

    /// Whether trying again later may succeed without any change: the tokens were kept.
    public var isTransient: Bool {
        [
            .serverError, .rateLimited, .networkFailure, .timedOut, .malformedResponse, .backingOff,
            .identityUnavailable, .lockTimedOut, .superseded,
        ].contains(code)
    }

    /// Whether an endpoint or URL is configured so that no request can succeed — not `https` (nor loopback), or it
    /// redirects — so that signing in again would meet the same URL: fix the configuration.
    public var isMisconfiguration: Bool {
        [.insecureEndpoint, .redirected, .insecureURL, .identityUntrusted].contains(code)
    }

    /// Two errors are equal when they have the same code and, for ``Code/rejected``, the same OAuth `error`.
    public static func == (lhs: TokenAuthError, rhs: TokenAuthError) -> Bool {
        guard lhs.code == rhs.code else { return false }
        return lhs.code != .rejected || lhs.oauthError?.error == rhs.oauthError?.error
    }

    /// A copy with another ``retryAfter``.
    package func retrying(after delay: Duration?) -> TokenAuthError {
        TokenAuthError(
            code, reason, fix: fix, underlying: underlying, oauthError: oauthError, retryAfter: delay,
            statusCode: statusCode, challenge: challenge, body: body)
    }

    /// Server-supplied text made safe to show: secrets replaced, only printable ASCII, bounded length.
    package static func sanitize(_ text: String, secrets: [String], limit: Int) -> String {
        // Cleaned first, redacted after: a secret the server split with characters that are removed here is found
        // whole, in the text as it will be shown.
        let printableASCII = { (text: String) in
            String(String.UnicodeScalarView(ServerText.printable(text).unicodeScalars.filter { (0x20...0x7E).contains($0.value) }))
        }
        var result = printableASCII(text)
        for secret in secrets where !secret.isEmpty {
            result = result.replacing(secret, with: "<redacted>")
            let shown = printableASCII(secret)
            if !shown.isEmpty, shown != secret { result = result.replacing(shown, with: "<redacted>") }
        }
        if result.count > limit {
            result = String(result.prefix(limit)) + "…"
        }
        return result
    }
}
