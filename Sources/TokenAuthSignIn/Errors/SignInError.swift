import Foundation
import TokenAuth

/// Every failure of signing in: discovery, the browser sign-in and its loopback listener, the device code, and
/// OpenID Connect identity (the `id_token`, the issuer's keys, UserInfo) — one type, with a stable ``code``.
///
/// ```swift
/// do {
///     let credentials = try await browserSignIn.signIn(scope: "openid") { url in try await SystemBrowser().open(url) }
///     try await manager.signIn(credentials.auth)
/// } catch let error as SignInError where error.isTransient {
///     showRetry(error.description)
/// } catch let error as SignInError {
///     show(error.reason, error.fix)  // refused, or not usable as configured
/// }
/// ```
///
/// Decide with the categories every error type of the package has, in the same words: ``isLoginRequired`` (the user
/// or the provider said no, or the answer cannot be trusted: nothing was stored; sign in again), ``isTransient`` (try
/// again later, nothing changes) and ``isMisconfiguration`` (the issuer, client or server is configured so that it
/// cannot work: fix that first). Exactly one holds for every error; ``isStorageFailure`` and ``isUnreadableEntry``
/// never do, since signing in stores nothing itself. ``reason`` says what happened and ``fix``
/// what to do, for a person; ``description`` is both. Failures of the OAuth endpoints — the token endpoint's code
/// exchange and device polling, the device authorization endpoint — are the core's `TokenAuthError`, with the
/// server's `OAuthErrorResponse`, as for a refresh.
///
/// No text contains a token, code, verifier, `state`, nonce or secret: what a server or a token said is cleaned
/// before it is quoted. Compare codes (`error.code == .denied`), or errors (`error == other`, by code).
public struct SignInError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed.
    public let code: Code
    /// What happened, in a sentence or two; never a secret.
    public let reason: String
    /// What to do about it.
    public let fix: String
    /// The server's OAuth error answer, when it refused (the authorization redirect's or the device authorization
    /// endpoint's `error`, `error_description`, `error_uri`).
    public let oauthError: OAuthErrorResponse?
    /// The HTTP status of the answer behind the failure, when there was one.
    public let statusCode: Int?
    /// The metadata member concerned (such as `token_endpoint`), for ``Code/missingEndpoint`` and
    /// ``Code/insecureEndpoint`` of discovery.
    public let member: String?
    /// The cause, when there is one (the core's error behind a refused device code, say).
    public let underlying: (any Error & Sendable)?
    private let transient: Bool?

    package init(
        _ code: Code, _ reason: String, fix: String, oauthError: OAuthErrorResponse? = nil, statusCode: Int? = nil,
        member: String? = nil, underlying: (any Error & Sendable)? = nil, transient: Bool? = nil
    ) {
        self.code = code
        self.reason = reason
        self.fix = fix
        self.oauthError = oauthError
        self.statusCode = statusCode
        self.member = member
        self.underlying = underlying
        self.transient = transient
    }

    /// What happened, what the server said (cleaned), and what to do.
    public var description: String {
        var text = reason
        if let said = oauthError?.errorDescription, !reason.contains(said) { text += ServerText.said(said) }
        return text + " " + fix
    }

    /// The OAuth `error` code the server sent, such as `access_denied`.
    public var oauthErrorCode: String? { oauthError?.error }

    // MARK: - What to do

    // The categories, in the same words on every error type of the package (`KeyringError`, `TokenAuthError`):
    // exactly one of them holds for every error (`SignInErrorCategoryTests` checks each code).

    /// Whether a sign-in is needed: here, the user or the provider said no, or what came back cannot be trusted.
    /// Nothing was stored; signing in again (after the fix, for a refusal of the client) is what to do.
    public var isLoginRequired: Bool { !isTransient && !isMisconfiguration }

    /// Whether the store cannot be used just now. Never for a `SignInError`: signing in stores nothing itself (what
    /// stores the credentials throws its own errors).
    public var isStorageFailure: Bool { false }

    /// Whether a stored entry cannot be read by this version. Never for a `SignInError`: signing in reads no entry.
    public var isUnreadableEntry: Bool { false }

    /// Whether trying again later may succeed without any change: a server that could not be used just now, no
    /// answer in time, keys that cannot be fetched yet.
    public var isTransient: Bool {
        transient ?? [
            .unavailable, .timedOut, .malformedResponse, .listenerUnavailable, .jwksUnavailable, .keyNotYetFetched,
            .userinfoUnavailable,
        ].contains(code)
    }

    /// Whether the sign-in cannot work until the issuer URL, the client, an option or the server's configuration
    /// changes, so that signing in again would not help: fix the configuration.
    public var isMisconfiguration: Bool {
        !isTransient && [
            .insecureIssuer, .invalidIssuer, .metadataNotFound, .redirected, .metadataNotJSON, .issuerMismatch,
            .missingEndpoint, .insecureEndpoint, .responseTooLarge, .unusableDeviceAnswer, .unknownProvider,
            .noAuthorizationEndpoint, .pkceUnsupported, .invalidRedirect, .listenerUnavailable, .jwksMisconfigured,
            .noGraphicalSession, .browserNotStarted,
        ].contains(code)
    }

    /// Whether the user or the provider said no, or what came back cannot be trusted: ``isLoginRequired``, its name
    /// on every error type of the package.
    @available(*, deprecated, renamed: "isLoginRequired")
    public var isRefused: Bool { isLoginRequired }

    /// Two errors are equal when they have the same code.
    public static func == (lhs: SignInError, rhs: SignInError) -> Bool { lhs.code == rhs.code }

    /// Text from a server or a token made safe to quote: printable ASCII, at most `limit` characters.
    static func clean(_ text: String, limit: Int = 200) -> String {
        TokenAuthError.sanitize(text, secrets: [], limit: limit)
    }

    /// What to do about a server that could not be reached or used just now.
    static let retryLaterFix = "Check the network connection and retry later."

    /// ` (HTTP 503)`, or nothing.
    static func statusText(_ statusCode: Int?) -> String {
        statusCode.map { " (HTTP \($0))" } ?? ""
    }
}
