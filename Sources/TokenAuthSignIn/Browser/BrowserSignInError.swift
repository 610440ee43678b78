import Foundation
import TokenAuth

/// Why a browser sign-in (authorization code with PKCE on a loopback redirect) ended without tokens.
///
/// - **Refused** (``isRefused``): the user or the provider said no on the authorization page — ``denied``
///   (`access_denied`) or ``rejected`` (any other `error` the redirect carried, such as `invalid_scope` or
///   `unauthorized_client`) — or the redirect carried an `iss` that is not the issuer's (``issuerMismatch``,
///   RFC 9207: a response from another server). Nothing was stored; sign in again, after a fix for ``rejected``.
/// - **Transient** (``isTransient``): ``timedOut`` (no answer within the time limit), ``unavailable`` (the
///   provider answered `temporarily_unavailable` or `server_error`), ``listenerUnavailable`` for an ephemeral port,
///   ``malformedResponse``. Trying again may succeed.
/// - **Misconfigured** (``isMisconfiguration``): the flow cannot start as configured — no authorization endpoint,
///   a server that does not support PKCE with S256, an insecure authorization endpoint, a redirect path that is not
///   an absolute path, or a fixed redirect port that cannot be bound.
///
/// Errors of the code exchange reach the caller as `TokenAuthError`. The descriptions never contain the
/// authorization code, the PKCE verifier or the `state`; the provider's `error_description` is shown sanitized.
public struct BrowserSignInError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of ``BrowserSignInError``.
    public typealias Code = ErrorCode<BrowserSignInError>

    /// What kind of failure this is; compare with the static members (`error.code == .denied`).
    public let code: Code
    /// The `error` code of the authorization response (RFC 6749 §4.1.2.1), such as `access_denied`, when there was
    /// one.
    public let oauthErrorCode: String?
    /// The provider's `error_description`, sanitized, when there was one.
    public let errorDescription: String?
    private let detail: String?

    private init(_ code: Code, oauthErrorCode: String? = nil, errorDescription: String? = nil, detail: String? = nil) {
        self.code = code
        self.oauthErrorCode = oauthErrorCode
        self.errorDescription = errorDescription
        self.detail = detail
    }

    // MARK: - Refused

    /// The user declined, or the provider refused the user (`access_denied`).
    public static let denied = BrowserSignInError(.denied)
    /// The authorization response carried another `error`, such as `invalid_scope` or `unauthorized_client`.
    public static let rejected = BrowserSignInError(.rejected)
    /// The authorization response's `iss` is not the issuer the sign-in started with, or is missing where the server
    /// promised it (RFC 9207).
    public static let issuerMismatch = BrowserSignInError(.issuerMismatch)

    // MARK: - Transient

    /// No authorization response came back within the time limit.
    public static let timedOut = BrowserSignInError(.timedOut)
    /// The provider answered `temporarily_unavailable` or `server_error`.
    public static let unavailable = BrowserSignInError(.unavailable)
    /// The loopback listener could not be started.
    public static let listenerUnavailable = BrowserSignInError(.listenerUnavailable)
    /// The authorization response had the right `state` but neither one `code` nor one `error`.
    public static let malformedResponse = BrowserSignInError(.malformedResponse)

    // MARK: - Misconfigured

    /// The server publishes no authorization endpoint; the browser sign-in is impossible there (the device flow may
    /// not be).
    public static let noAuthorizationEndpoint = BrowserSignInError(.noAuthorizationEndpoint)
    /// The server lists PKCE methods and S256 is not among them. The `plain` method is never used.
    public static let pkceUnsupported = BrowserSignInError(.pkceUnsupported)
    /// The authorization endpoint is neither `https` nor `http` on a loopback host.
    public static let insecureEndpoint = BrowserSignInError(.insecureEndpoint)
    /// The redirect path is not an absolute path such as `/callback`.
    public static let invalidRedirect = BrowserSignInError(.invalidRedirect)

    // MARK: - Classification

    /// Whether the user or the provider refused the sign-in.
    public var isRefused: Bool { [.denied, .rejected, .issuerMismatch].contains(code) }

    /// Whether trying again may succeed without any change.
    public var isTransient: Bool {
        if code == .listenerUnavailable { return !fixedPort }
        return [.timedOut, .unavailable, .malformedResponse].contains(code)
    }

    /// Whether the sign-in cannot start until its configuration (or the server's) changes.
    public var isMisconfiguration: Bool { !isRefused && !isTransient }

    /// Two errors are equal when they are the same kind of failure.
    public static func == (lhs: BrowserSignInError, rhs: BrowserSignInError) -> Bool {
        lhs.code == rhs.code
    }

    private var fixedPort: Bool { detail?.hasPrefix("fixed ") == true }

    // MARK: - Construction

    static func fromRedirect(error: String, description: String?) -> BrowserSignInError {
        let code: Code
        switch error {
        case "access_denied": code = .denied
        case "temporarily_unavailable", "server_error": code = .unavailable
        default: code = .rejected
        }
        return BrowserSignInError(
            code, oauthErrorCode: TokenAuthError.sanitize(error, secrets: [], limit: 100),
            errorDescription: description.map { TokenAuthError.sanitize($0, secrets: [], limit: 500) })
    }

    static func issuerMismatch(expected: String, found: String?) -> BrowserSignInError {
        let named = found.map { "\"\(TokenAuthError.sanitize($0, secrets: [], limit: 300))\"" } ?? "no issuer"
        return BrowserSignInError(.issuerMismatch, detail: "it names \(named), not \"\(expected)\"")
    }

    static func timedOut(after limit: Duration) -> BrowserSignInError {
        BrowserSignInError(.timedOut, detail: "\(limit.components.seconds) s")
    }

    static func listenerUnavailable(port: Int, cause: any Error) -> BrowserSignInError {
        let which = port == 0 ? "an ephemeral port" : "fixed port \(port)"
        return BrowserSignInError(.listenerUnavailable, detail: "\(which) (\(cause))")
    }

    static func malformedResponse(_ reason: String) -> BrowserSignInError {
        BrowserSignInError(.malformedResponse, detail: reason)
    }

    static func pkceUnsupported(listed: [String]) -> BrowserSignInError {
        BrowserSignInError(.pkceUnsupported, detail: listed.joined(separator: ", "))
    }

    static func insecureEndpoint(_ url: URL) -> BrowserSignInError {
        BrowserSignInError(.insecureEndpoint, detail: LogRedaction.url(url))
    }

    static func invalidRedirect(path: String) -> BrowserSignInError {
        BrowserSignInError(.invalidRedirect, detail: "\"\(TokenAuthError.sanitize(path, secrets: [], limit: 200))\"")
    }

    // MARK: - Description

    /// What happened and how to fix it, written for a person.
    public var description: String { summary + " " + fix }

    private var serverSaid: String {
        guard let oauthErrorCode else { return "" }
        return " (\(oauthErrorCode)\(errorDescription.map { ": \($0)" } ?? ""))"
    }

    private var summary: String {
        switch code {
        case .denied: return "The sign-in was declined at the provider\(serverSaid); nothing was stored."
        case .rejected: return "The provider refused the sign-in request\(serverSaid); nothing was stored."
        case .issuerMismatch:
            return "The sign-in answer came from another authorization server: \(detail ?? "its iss is wrong"); "
                + "nothing was stored."
        case .timedOut:
            return "No sign-in answer came back from the browser within \(detail ?? "the time limit"); nothing was stored."
        case .unavailable: return "The provider could not complete the sign-in just now\(serverSaid)."
        case .listenerUnavailable:
            return "The sign-in could not listen for the browser's answer on 127.0.0.1, \(detail ?? "")."
        case .malformedResponse:
            return "The browser came back with an answer that is not a sign-in response: \(detail ?? "")."
        case .noAuthorizationEndpoint:
            return "The authorization server publishes no authorization endpoint, so it cannot sign in through a browser."
        case .pkceUnsupported:
            return "The authorization server does not support PKCE with S256 (it lists \(detail ?? "nothing"))."
        case .insecureEndpoint:
            return "Refused to sign in through \(detail ?? "the authorization endpoint"): it is not https."
        case .invalidRedirect:
            return "The redirect path \(detail ?? "") is not an absolute path."
        default: return "The browser sign-in failed."
        }
    }

    /// What to do about it.
    public var fix: String {
        switch code {
        case .denied: return "Sign in again and approve the request, as a user who may use this app."
        case .rejected:
            return "Check the client id, the scope and the registered redirect URI with the provider, then sign in again."
        case .issuerMismatch:
            return "Sign in again from the app; if it happens again, the issuer URL may name the wrong server."
        case .timedOut: return "Sign in again and finish in the browser before the time limit, or use the device code."
        case .unavailable: return "Try again in a moment."
        case .listenerUnavailable:
            return fixedPort
                ? "Free that port or choose another one that the provider accepts as a redirect URI."
                : "Check that 127.0.0.1 is usable here, then try again."
        case .malformedResponse: return "Sign in again from the app."
        case .noAuthorizationEndpoint: return "Use the device code sign-in, or check the issuer URL."
        case .pkceUnsupported:
            return "Enable PKCE (S256) for this client at the provider; signing in without it is not offered."
        case .insecureEndpoint: return "Use the provider's https:// authorization endpoint."
        case .invalidRedirect: return "Give a path that starts with \"/\", such as /callback."
        default: return "Try again."
        }
    }
}

extension ErrorCode where Domain == BrowserSignInError {
    /// ``BrowserSignInError/denied``.
    public static let denied = Self("denied")
    /// ``BrowserSignInError/rejected``.
    public static let rejected = Self("rejected")
    /// ``BrowserSignInError/issuerMismatch``.
    public static let issuerMismatch = Self("issuerMismatch")
    /// ``BrowserSignInError/timedOut``.
    public static let timedOut = Self("timedOut")
    /// ``BrowserSignInError/unavailable``.
    public static let unavailable = Self("unavailable")
    /// ``BrowserSignInError/listenerUnavailable``.
    public static let listenerUnavailable = Self("listenerUnavailable")
    /// ``BrowserSignInError/malformedResponse``.
    public static let malformedResponse = Self("malformedResponse")
    /// ``BrowserSignInError/noAuthorizationEndpoint``.
    public static let noAuthorizationEndpoint = Self("noAuthorizationEndpoint")
    /// ``BrowserSignInError/pkceUnsupported``.
    public static let pkceUnsupported = Self("pkceUnsupported")
    /// ``BrowserSignInError/insecureEndpoint``.
    public static let insecureEndpoint = Self("insecureEndpoint")
    /// ``BrowserSignInError/invalidRedirect``.
    public static let invalidRedirect = Self("invalidRedirect")
}
