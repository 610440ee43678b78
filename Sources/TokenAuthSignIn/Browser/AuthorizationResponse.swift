import Foundation
import TokenAuth

extension LoopbackRedirectListener.Request {
    /// The request whose HTTP request-target is `target` (such as `/callback?code=…&state=…`, or the absolute form
    /// `http://127.0.0.1:PORT/callback?…`), when its path is exactly `path`; `nil` for any other path, which the
    /// listener answers with a 404.
    ///
    /// The query is form-encoded (RFC 6749 §4.1.2 and Appendix B): `+` is a space, so `error_description=The+user+declined`
    /// reads "The user declined". (`URLComponents` escapes a `%` that starts no valid escape, which then stays as
    /// it came; a name or value that still cannot be decoded makes the request no sign-in response.)
    ///
    /// The browser's bytes, read without a socket: the `loopback-redirect` fuzz target calls it.
    init?(target: String, path: String) {
        // A path that starts with `//` (origin form has no authority) would be read as a host and a shorter path.
        guard !target.hasPrefix("//"), let components = URLComponents(string: target),
            components.percentEncodedPath == path
        else { return nil }
        var parameters: [(name: String, value: String)] = []
        for item in components.percentEncodedQueryItems ?? [] {
            guard let name = FormEncoding.decoded(Substring(item.name)),
                let value = FormEncoding.decoded(Substring(item.value ?? ""))
            else { return nil }
            parameters.append((name, value))
        }
        self.init(parameters: parameters)
    }
}

/// What one request on the redirect path says to the sign-in waiting for it (RFC 6749 §4.1.2, RFC 9207), read
/// apart from the listener and from whether the sign-in already got its answer.
///
/// A response is the sign-in's only when it carries the sign-in's `state` exactly once. Then it is either a code or
/// a refusal, never both: a response with an `error` is refused even when it also carries a `code`.
enum AuthorizationResponse: Sendable {
    /// The `state` is missing, repeated or another: the request belongs to no sign-in in progress.
    case otherState
    /// The authorization code, present exactly once and not empty.
    case code(String)
    /// The sign-in ends with this error: the provider's `error`, an `iss` that is not the issuer, or a response
    /// without a single code.
    case refused(SignInError)

    /// Reads `redirect` for the sign-in that sent `state`.
    ///
    /// - Parameters:
    ///   - state: The `state` the authorization request carried.
    ///   - issuer: The issuer an `iss` parameter must equal; `nil` skips the check.
    ///   - requiresIssuerParameter: Whether a response without `iss` is refused (when `issuer` is known).
    init(
        _ redirect: LoopbackRedirectListener.Request, state: String, issuer: String?, requiresIssuerParameter: Bool
    ) {
        guard redirect.single("state") == state else {
            self = .otherState
            return
        }
        if let issuer {
            let iss = redirect.single("iss")
            if redirect.count(of: "iss") > 1 || (iss == nil && requiresIssuerParameter) || (iss != nil && iss != issuer) {
                self = .refused(.responseIssuerMismatch(expected: issuer, found: iss))
                return
            }
        }
        if redirect.count(of: "error") > 0 {
            guard let error = redirect.single("error") else {
                self = .refused(.malformedRedirect("it has more than one error"))
                return
            }
            self = .refused(.fromRedirect(error: error, description: redirect.single("error_description")))
            return
        }
        guard let code = redirect.single("code"), !code.isEmpty else {
            self = .refused(.malformedRedirect(redirect.count(of: "code") > 1 ? "it has more than one code" : "it has no code"))
            return
        }
        self = .code(code)
    }
}
