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
        text += ServerText.said(oauthError?.errorDescription)
        if let retryAfter, code != .backingOff {
            let (seconds, attoseconds) = retryAfter.components
            text += " Retry after \(seconds + (attoseconds > 0 ? 1 : 0)) s."
        }
        return text + " " + fix
    }

    /// The OAuth `error` code of a refusal, such as `invalid_grant`.
    public var oauthErrorCode: String? { oauthError?.error }

    // MARK: - What to do

    // The categories, in the same words on every error type of the package (`KeyringError`, `SignInError`): exactly
    // one of them holds for every code (`TokenAuthErrorCategoryTests` checks each).

    /// Whether a sign-in is needed: nothing is stored, the session was signed out (here or in another process) or
    /// ended, or the server refused the credentials. Show the sign-in screen.
    public var isLoginRequired: Bool {
        [.rejected, .noCredentials, .signedOut, .sessionEnded, .identityMismatch, .missing, .proofKeyUnusable].contains(code)
    }

    /// Whether the store cannot be used just now: the file store's directory or files are unusable, a refresh's
    /// answer was not stored (it is kept, and stored by the next use), or the refresh lock cannot be taken where it
    /// must be. Nothing was lost: fix the store.
    public var isStorageFailure: Bool {
        [.storageFailed, .notStored, .lockUnavailable].contains(code)
    }

    /// Whether a stored entry cannot be read by this version (damaged, or written by a newer one): it was left
    /// untouched, and only an explicit write (a sign-in, an import) replaces it.
    public var isUnreadableEntry: Bool {
        [.corrupt, .unsupportedVersion].contains(code)
    }

    /// Whether trying again later may succeed without any change: the network, the server's 5xx or 429, no answer
    /// in time, an answer that is not what the protocol answers, the backoff after such failures, a refresh loop
    /// stopped for a while, another writer or holder of the lock in the way. The tokens were kept.
    public var isTransient: Bool {
        [
            .serverError, .rateLimited, .networkFailure, .timedOut, .malformedResponse, .invalidResponse, .backingOff,
            .excessiveRefresh, .identityUnavailable, .lockTimedOut, .superseded,
        ].contains(code)
    }

    /// Whether an endpoint, client, URL or option cannot work as configured — not `https` (nor loopback), a redirect,
    /// a client without what the request needs, a request that cannot be sent, an answer over the transport's
    /// limit, an identity check that cannot run — so that signing in again would not help: fix the configuration.
    public var isMisconfiguration: Bool {
        [
            .insecureEndpoint, .redirected, .insecureURL, .identityUntrusted, .invalidClientConfiguration,
            .invalidRequest, .responseTooLarge, .proofRefused, .proofKeyUnavailable,
        ].contains(code)
    }

    /// Whether an authorized request was refused by the resource: a 401 after the one refresh and retry, a token
    /// without the scope it needs, a status that is not 2xx, or a 2xx body that does not decode. The session is
    /// fine; the request, its scope or the resource is not.
    public var isRequestRefused: Bool {
        [.unauthorized, .insufficientScope, .unacceptableStatus, .decodingFailed].contains(code)
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
