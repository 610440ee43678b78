import TokenAuth

/// The device flow's own ends without tokens (RFC 8628 §3.5): the user declined, or the code expired.
extension SignInError {
    /// The user declined at the verification page: the token endpoint's `access_denied`.
    static func deviceDenied(_ answer: TokenAuthError) -> SignInError {
        SignInError(
            .denied, "The sign-in was declined at the authorization server; nothing was stored.",
            fix: "Start the sign-in again if it was declined by mistake.", oauthError: answer.oauthError,
            statusCode: answer.statusCode, underlying: answer)
    }

    /// The device code expired: the server said `expired_token` (`answer`), or its lifetime passed without a
    /// decision.
    static func codeExpired(_ answer: TokenAuthError?, lifetime: Duration) -> SignInError {
        let why = answer == nil ? "no decision within its lifetime of \(lifetime.components.seconds) s" : "the server said so"
        return SignInError(
            .codeExpired, "The device code expired before the sign-in was approved (\(why)); nothing was stored.",
            fix: "Start the sign-in again and enter the new code sooner.", oauthError: answer?.oauthError,
            statusCode: answer?.statusCode, underlying: answer)
    }
}
