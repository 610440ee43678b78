import Foundation
import TokenAuth

/// The failures of the browser sign-in (authorization code with PKCE on a loopback redirect) and of opening the
/// browser. The texts never contain the authorization code, the PKCE verifier or the `state`.
extension SignInError {
    /// The authorization response carried `error` (RFC 6749 §4.1.2.1).
    static func fromRedirect(error: String, description: String?) -> SignInError {
        let answer = OAuthErrorResponse(error: error, errorDescription: description)
        let said = " (\(answer.error)\(answer.errorDescription.map { ": \($0)" } ?? ""))"
        switch answer.error {
        case "access_denied":
            return SignInError(
                .denied, "The sign-in was declined at the provider\(said); nothing was stored.",
                fix: "Sign in again and approve the request, as a user who may use this app.", oauthError: answer)
        case "temporarily_unavailable", "server_error":
            return SignInError(
                .unavailable, "The provider could not complete the sign-in just now\(said).", fix: "Try again in a moment.",
                oauthError: answer)
        default:
            return SignInError(
                .rejected, "The provider refused the sign-in request\(said); nothing was stored.",
                fix: "Check the client id, the scope and the registered redirect URI with the provider, then sign in again.",
                oauthError: answer)
        }
    }

    static func responseIssuerMismatch(expected: String, found: String?) -> SignInError {
        let named = found.map { "\"\(clean($0, limit: 300))\"" } ?? "no issuer"
        return SignInError(
            .responseIssuerMismatch,
            "The sign-in answer came from another authorization server: it names \(named), not \"\(expected)\"; "
                + "nothing was stored.",
            fix: "Sign in again from the app; if it happens again, the issuer URL may name the wrong server.")
    }

    static func timedOut(after limit: Duration) -> SignInError {
        SignInError(
            .timedOut,
            "No sign-in answer came back from the browser within \(limit.components.seconds) s; nothing was stored.",
            fix: "Sign in again and finish in the browser before the time limit, or use the device code.")
    }

    static func listenerUnavailable(port: Int, cause: any Error) -> SignInError {
        let which = port == 0 ? "an ephemeral port" : "fixed port \(port)"
        return SignInError(
            .listenerUnavailable, "The sign-in could not listen for the browser's answer on 127.0.0.1, \(which) (\(cause)).",
            fix: port == 0
                ? "Check that 127.0.0.1 is usable here, then try again."
                : "Free that port or choose another one that the provider accepts as a redirect URI.",
            transient: port == 0)
    }

    static func malformedRedirect(_ problem: String) -> SignInError {
        SignInError(
            .malformedResponse, "The browser came back with an answer that is not a sign-in response: \(problem).",
            fix: "Sign in again from the app.")
    }

    static let noAuthorizationEndpoint = SignInError(
        .noAuthorizationEndpoint,
        "The authorization server publishes no authorization endpoint, so it cannot sign in through a browser.",
        fix: "Use the device code sign-in, or check the issuer URL.")

    static func pkceUnsupported(listed: [String]) -> SignInError {
        SignInError(
            .pkceUnsupported,
            "The authorization server does not support PKCE with S256 (it lists \(listed.isEmpty ? "nothing" : listed.joined(separator: ", "))).",
            fix: "Enable PKCE (S256) for this client at the provider; signing in without it is not offered.")
    }

    static func insecureAuthorizationEndpoint(_ url: URL) -> SignInError {
        SignInError(
            .insecureEndpoint, "Refused to sign in through \(LogRedaction.url(url)): it is not https.",
            fix: "Use the provider's https:// authorization endpoint.")
    }

    static func invalidRedirect(_ problem: String) -> SignInError {
        SignInError(
            .invalidRedirect, "The redirect's \(clean(problem)) cannot be used.",
            fix: "Give an absolute path without a query or fragment, such as /callback, and a port from 0 to 65535.")
    }

    // MARK: Opening the browser

    static let noGraphicalSession = SignInError(
        .noGraphicalSession, "No browser was opened: this session has no display and BROWSER is not set.",
        fix: "Open the URL on any device's browser that can reach this machine's 127.0.0.1 (for example through "
            + "`ssh -L`), set BROWSER, or use the device code sign-in.")

    package static func browserNotStarted(_ problems: String) -> SignInError {
        SignInError(
            .browserNotStarted, "No browser could be started (\(problems)).",
            fix: "Open the URL yourself, or set BROWSER to a browser command.")
    }
}
