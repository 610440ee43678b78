import Foundation
import TokenAuth

/// The failures of OpenID Connect identity: the `id_token`, the issuer's key set, and UserInfo. No text contains the
/// token; claims are quoted only when they identify a party (issuer, audience, key), never a nonce.
extension SignInError {
    static let missingIDToken = SignInError(
        .missingIDToken, "The token response has no id_token, although the scope includes openid.",
        fix: "Check that the client is allowed the openid scope at the provider.")

    /// What to do about an `id_token` that is malformed or whose signature cannot be verified.
    private static let signingFix = "Sign in again; if it persists, check the issuer URL and the provider's signing "
        + "configuration (an id_token must be signed with an asymmetric key from its jwks_uri)."

    static func malformedIDToken(_ problem: String) -> SignInError {
        SignInError(.malformedIDToken, "The id_token is malformed: \(problem).", fix: signingFix)
    }

    static func unsupportedAlgorithm(_ alg: String?) -> SignInError {
        SignInError(
            .unsupportedAlgorithm,
            "The id_token's signature algorithm is not accepted: \(alg.map { "\"\(clean($0))\"" } ?? "no alg").",
            fix: signingFix)
    }

    static func unknownKey(_ kid: String) -> SignInError {
        SignInError(.unknownKey, "The id_token is signed with a key the issuer does not publish: \"\(clean(kid))\".", fix: signingFix)
    }

    static func keyNotYetFetched(_ kid: String) -> SignInError {
        SignInError(
            .keyNotYetFetched,
            "The id_token is signed with a key the issuer's key set lacked when it was last fetched, too recently to "
                + "fetch it again: \"\(clean(kid))\".",
            fix: "Retry in a minute, when the key set may be fetched again.")
    }

    static func badSignature(_ problem: String) -> SignInError {
        SignInError(.badSignature, "The id_token's signature does not verify: \(problem).", fix: signingFix)
    }

    static func wrongIssuer(expected: String, found: String, problem: String? = nil) -> SignInError {
        SignInError(
            .wrongIssuer,
            "The id_token is from another issuer: it names \"\(clean(found))\", not \"\(expected)\""
                + (problem.map { " (\($0))" } ?? "") + ".",
            fix: "Use exactly the issuer identifier the provider puts in its id_tokens.")
    }

    /// What to do about an `id_token` issued to another client.
    private static let clientFix = "Check the client id: the id_token must be issued to this client."

    static func wrongAudience(_ problem: String) -> SignInError {
        SignInError(.wrongAudience, "The id_token is not for this client: \(problem).", fix: clientFix)
    }

    static func wrongAuthorizedParty(_ found: String) -> SignInError {
        SignInError(
            .wrongAuthorizedParty, "The id_token was issued to another party (azp): \"\(clean(found))\".", fix: clientFix)
    }

    /// An `id_token` outside its time: `exp` passed, or `iat` still to come, by this computer's clock at `now`.
    static func outOfTime(_ code: Code, _ what: String, at claimed: Date, now: Date) -> SignInError {
        SignInError(
            code, "The id_token \(what) at \(claimed.formatted(.iso8601)), now is \(now.formatted(.iso8601)).",
            fix: "Check that this computer's clock is right, then sign in again.")
    }

    static func nonceMismatch(_ problem: String) -> SignInError {
        SignInError(
            .nonceMismatch, "The id_token does not carry the nonce of this sign-in: \(problem).",
            fix: "Start the sign-in again; an id_token from another sign-in must not be accepted.")
    }

    static func subjectChanged(_ problem: String) -> SignInError {
        SignInError(
            .subjectChanged, "A refresh returned an id_token for another account: \(problem); its tokens were not used.",
            fix: "Sign in again, as the account you mean to use.")
    }

    // MARK: The key set and UserInfo

    /// A failure of the key set or UserInfo: `subject`, the HTTP status when there was one, then `problem`; the status
    /// is kept as ``statusCode`` too.
    private static func documentFailure(
        _ code: Code, _ subject: String, statusCode: Int?, _ problem: String, fix: String = retryLaterFix
    ) -> SignInError {
        SignInError(code, "\(subject)\(statusText(statusCode)): \(problem).", fix: fix, statusCode: statusCode)
    }

    static func jwksUnavailable(statusCode: Int? = nil, _ problem: String) -> SignInError {
        documentFailure(
            .jwksUnavailable, "The issuer's signing keys could not be fetched just now", statusCode: statusCode, problem)
    }

    static func jwksMisconfigured(statusCode: Int? = nil, _ problem: String) -> SignInError {
        documentFailure(
            .jwksMisconfigured, "The issuer's signing keys cannot be used", statusCode: statusCode, problem,
            fix: "Check the issuer's jwks_uri: it must be an https URL (http only on loopback) that serves a JWK Set "
                + "with the provider's signing keys.")
    }

    static func userinfoUnavailable(statusCode: Int? = nil, _ problem: String) -> SignInError {
        documentFailure(
            .userinfoUnavailable, "The UserInfo endpoint could not be used just now", statusCode: statusCode, problem)
    }

    static func userinfoInvalid(statusCode: Int? = nil, _ problem: String) -> SignInError {
        documentFailure(
            .userinfoInvalid, "The UserInfo endpoint's answer cannot be used", statusCode: statusCode, problem,
            fix: "Check the userinfo_endpoint and that the access token is allowed to read it (scope openid).")
    }

    static let userinfoSubjectMismatch = SignInError(
        .userinfoSubjectMismatch, "The UserInfo endpoint answered for another subject than the id_token.",
        fix: "Do not trust this provider's answers until it is fixed; sign in again.")

    /// Whether this is a failure of identity (the `id_token`, the issuer's keys, UserInfo) rather than of the
    /// sign-in's own steps.
    var concernsIdentity: Bool {
        [
            .missingIDToken, .malformedIDToken, .unsupportedAlgorithm, .unknownKey, .keyNotYetFetched, .badSignature,
            .wrongIssuer, .wrongAudience, .wrongAuthorizedParty, .idTokenExpired, .issuedInFuture, .nonceMismatch,
            .subjectChanged, .jwksUnavailable, .jwksMisconfigured, .userinfoUnavailable, .userinfoInvalid,
            .userinfoSubjectMismatch,
        ].contains(code)
    }

    // MARK: For the core's identity check

    /// This error as the core's identity-check failure: `identityUnavailable` when ``isTransient``,
    /// `identityMismatch` for ``Code/subjectChanged``, `identityUntrusted` otherwise, with this error as its cause.
    public var identityCheckFailure: TokenAuthError {
        let code: TokenAuthError.Code = isTransient
            ? .identityUnavailable : self.code == .subjectChanged ? .identityMismatch : .identityUntrusted
        return .identityCheck(code, reason: reason, fix: fix, underlying: self)
    }
}
