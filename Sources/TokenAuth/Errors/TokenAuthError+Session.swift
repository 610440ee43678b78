#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// The failures of the session, the store, identity checks, authorized requests and the refresh lock.
extension TokenAuthError {
    // MARK: The session

    /// Nothing is stored, or nothing that can be refreshed: `reason` says which.
    package static func noCredentials(_ reason: String) -> TokenAuthError {
        TokenAuthError(.noCredentials, "Sign-in required: \(reason).", fix: "Sign in.")
    }

    /// The session was signed out: `reason` says where.
    package static func signedOut(_ reason: String) -> TokenAuthError {
        TokenAuthError(.signedOut, "Sign-in required: \(reason).", fix: "Sign in again.")
    }

    /// The session ended although its entry was kept, for `reason` (``Auth/endReason``).
    package static func sessionEnded(_ reason: String, underlying: TokenAuthError? = nil) -> TokenAuthError {
        TokenAuthError(.sessionEnded, "Sign-in required: \(reason).", fix: "Sign in again.", underlying: underlying)
    }

    /// A refresh's new tokens could not be stored because of `error` (the store's); they are kept at `keptAt`, or
    /// only in this process's memory when `keptAt` is `nil`.
    package static func notStored(because error: any Error & Sendable, keptAt: String?) -> TokenAuthError {
        let cause = (error as? TokenAuthError)?.reason ?? "\(error)"
        let kept = keptAt.map {
            "They are kept in \($0) (in memory, never on disk), and the next use stores them once the store works again."
        } ?? "They could not be kept anywhere but in this process, which the next use cannot find."
        return TokenAuthError(
            .notStored, "The tokens were refreshed, but the store could not take them: \(cause) \(kept)",
            fix: keptAt == nil
                ? "Fix the store (see the cause); if the next use is refused, sign in again."
                : "Fix the store (see the cause), then use the session again; do not sign in again, the session is alive.",
            underlying: error)
    }

    /// The token endpoint is left alone after `failure` until `retryAfter` has passed.
    package static func backingOff(after failure: TokenAuthError, retryAfter: Duration) -> TokenAuthError {
        TokenAuthError(
            .backingOff, "The token endpoint failed recently (\(failure.reason)); it is not asked again yet.",
            fix: "Try again in \(wholeSeconds(retryAfter)) s; the tokens were kept.", underlying: failure,
            retryAfter: retryAfter)
    }

    /// More than `limit` refreshes within `window`.
    package static func excessiveRefresh(limit: Int, window: Duration) -> TokenAuthError {
        TokenAuthError(
            .excessiveRefresh, "Refreshing stopped: more than \(limit) refreshes within \(window).",
            fix: "Check that the server accepts the tokens it issues (a resource that rejects every new token causes "
                + "this), then try again.")
    }

    // MARK: Identity checks

    /// The failure an ``IdentityCheck`` throws: `code` is ``Code/identityUnavailable`` (cannot run just now),
    /// ``Code/identityMismatch`` (another account) or ``Code/identityUntrusted`` (anything else); `underlying` is the
    /// check's own error.
    public static func identityCheck(
        _ code: Code, reason: String, fix: String, underlying: (any Error & Sendable)? = nil
    ) -> TokenAuthError {
        precondition(
            [.identityUnavailable, .identityMismatch, .identityUntrusted].contains(code),
            "an identity check fails with identityUnavailable, identityMismatch or identityUntrusted")
        return TokenAuthError(code, reason, fix: fix, underlying: underlying)
    }

    /// `error`, thrown by an ``IdentityCheck``, as an identity failure: itself when it is one, else
    /// ``Code/identityUntrusted``.
    package static func identityFailure(_ error: any Error) -> TokenAuthError {
        if let error = error as? TokenAuthError,
            [.identityUnavailable, .identityMismatch, .identityUntrusted].contains(error.code)
        {
            return error
        }
        return TokenAuthError(
            .identityUntrusted, "The identity check failed (\(type(of: error))).", fix: "Sign in again.",
            underlying: error)
    }

    // MARK: The store

    /// The stored entry for `entry` (e.g. `service "S", account "A"`) is not a token bundle: `reason` says why. It
    /// was left untouched.
    public static func corrupt(_ entry: String, _ reason: String) -> TokenAuthError {
        TokenAuthError(
            .corrupt, "The stored tokens for \(entry) could not be read: \(reason). They were left untouched.",
            fix: "Sign in again (or import tokens) to replace them, or delete the entry.")
    }

    /// The stored entry for `entry` was written by format `version`, newer than this library's.
    public static func unsupportedVersion(_ entry: String, _ version: Int) -> TokenAuthError {
        TokenAuthError(
            .unsupportedVersion,
            "The stored tokens for \(entry) use a newer format (version \(version)); they were left untouched.",
            fix: "Upgrade TokenKeyring, or sign in again to replace them.")
    }

    /// A refresh was to replace the entry for `entry`, and there is none any more: nothing was written.
    public static func missing(_ entry: String) -> TokenAuthError {
        TokenAuthError(
            .missing,
            "The stored tokens for \(entry) were removed (signed out elsewhere); the refreshed tokens were not written.",
            fix: "Sign in again.")
    }

    /// A refresh was to replace the entry for `entry`, which another writer replaced meanwhile: nothing was written.
    public static func superseded(_ entry: String) -> TokenAuthError {
        TokenAuthError(
            .superseded,
            "The stored tokens for \(entry) were replaced by another writer while they were refreshed; the refreshed "
                + "tokens were not written, and the newer ones stand.",
            fix: "Nothing to do: the next use takes the newer tokens.")
    }

    /// The store's file or directory at `path` could not be used: `problem` says how, `fix` what to do. Nothing was
    /// written. Never names a secret: only paths, modes and the system's error text.
    package static func storageFailed(_ path: String, _ problem: String, fix: String) -> TokenAuthError {
        TokenAuthError(.storageFailed, "The token file store could not use \(path): \(problem).", fix: fix)
    }

    // MARK: Authorized requests

    /// The resource rejected the token of a request that was already retried once, or that could not be retried.
    package static func unauthorized(_ response: HTTPResponse, body: Data) -> TokenAuthError {
        let challenge = mainChallenge(of: response)
        return TokenAuthError(
            .unauthorized,
            "The server rejected the access token (\(response.status.code)\(text(of: challenge))) even after a refresh.",
            fix: "The token endpoint issues tokens this resource does not accept: check the client's scope and "
                + "audience, or sign in again.",
            statusCode: response.status.code, challenge: challenge, body: body)
    }

    /// A `403 insufficient_scope` answer.
    package static func insufficientScope(_ response: HTTPResponse, body: Data) -> TokenAuthError {
        let challenge = mainChallenge(of: response)
        let scope = challenge?.scope.map { " It needs the scope \"\($0)\"." } ?? ""
        return TokenAuthError(
            .insufficientScope,
            "The access token lacks the permission this resource needs (\(response.status.code)\(text(of: challenge))).\(scope)",
            fix: "Sign in again asking for that scope; refreshing does not widen it.",
            statusCode: response.status.code, challenge: challenge, body: body)
    }

    /// A non-2xx status where `load` needed a 2xx one.
    package static func unacceptableStatus(_ response: HTTPResponse, body: Data) -> TokenAuthError {
        let challenge = mainChallenge(of: response)
        return TokenAuthError(
            .unacceptableStatus,
            "The server answered \(response.status.code)\(text(of: challenge)) where a successful response was expected.",
            fix: "Read the error's body for the server's explanation.",
            statusCode: response.status.code, challenge: challenge, body: body)
    }

    /// A 2xx body that did not decode.
    package static func decodingFailed(_ response: HTTPResponse, body: Data, error: any Error) -> TokenAuthError {
        TokenAuthError(
            .decodingFailed, "The response body is not the expected JSON: \(error).",
            fix: "Check that the request's URL and the decoded type match the API.",
            underlying: error, statusCode: response.status.code, body: body)
    }

    /// A request to `url` refused because it would carry the token over plain HTTP. Names only the scheme, host and
    /// port: the path and query may hold secrets of their own.
    package static func insecureURL(_ url: URL) -> TokenAuthError {
        let port = url.port.map { ":\($0)" } ?? ""
        return TokenAuthError(
            .insecureURL,
            "Refused to send the access token to \(url.scheme ?? "?")://\(url.host ?? "?")\(port) over plain HTTP, "
                + "where anyone on the network could read it; nothing was sent.",
            fix: "Use an https:// URL. Plain http is allowed to loopback hosts (localhost, 127.0.0.0/8, ::1), and to "
                + "other hosts only with allowsInsecureHTTP, for development.")
    }

    /// The entry holds tokens issued to another client than the one reading it: they are never sent by this one.
    package static func anotherClient(_ entry: String, stored: String, expected: String) -> TokenAuthError {
        TokenAuthError(
            .invalidClientConfiguration,
            "The stored entry (\(entry)) holds tokens issued to the client \"\(stored)\", not to this app's client "
                + "\"\(expected)\"; they are never sent by this app.",
            fix: "Give each app a keyring service of its own (AuthSession's default, CLIENT_ID@ISSUER_HOST, keeps apps "
                + "apart), or sign in again, which replaces them, if the entry is this app's.")
    }

    /// A ``RefreshHost``'s process ended without an error and without storing what the refresh needed.
    package static func refreshNotRun() -> TokenAuthError {
        TokenAuthError(
            .storageFailed, "The process that refreshes the session ended without storing new tokens.",
            fix: "The tokens were kept; try again. If it happens every time, the app does not call "
                + "AuthSession.bootstrap() first in main.")
    }

    // MARK: The refresh lock

    /// The lock file cannot be used: `reason` says why.
    package static func lockUnavailable(
        _ reason: String, fix: String = "Check that the lock file's directory belongs to this user and is writable."
    ) -> TokenAuthError {
        TokenAuthError(.lockUnavailable, "Could not take the refresh lock: \(reason).", fix: fix)
    }

    /// Another holder kept the lock at `path` longer than `wait`.
    package static func lockTimedOut(_ path: String, wait: Duration) -> TokenAuthError {
        TokenAuthError(
            .lockTimedOut, "Could not take the refresh lock: another process held \(path) for more than \(wait).",
            fix: "Try again once the other process's refresh has finished; a process that hangs while holding the "
                + "lock can be ended safely.")
    }

    // MARK: Helpers

    private static func mainChallenge(of response: HTTPResponse) -> AuthenticationChallenge? {
        let challenges = AuthenticationChallenge.challenges(in: response)
        return challenges.first { $0.hasScheme("Bearer") } ?? challenges.first
    }

    private static func text(of challenge: AuthenticationChallenge?) -> String {
        guard let challenge else { return "" }
        let parts = [challenge.error, challenge.errorDescription.map { "\"\($0)\"" }].compactMap { $0 }
        return parts.isEmpty ? "" : " (\(parts.joined(separator: " ")))"
    }

    package static func wholeSeconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds + (attoseconds > 0 ? 1 : 0)
    }
}
