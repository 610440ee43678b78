#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The failures of proof of possession (DPoP, RFC 9449).
extension TokenAuthError {
    /// A server refused a DPoP proof: `invalid_dpop_proof` from the token endpoint (RFC 9449 §5 says 400; some
    /// servers answer 403) or in a resource's `DPoP` challenge (§7.1).
    ///
    /// A misconfiguration, never a reason to sign out: the tokens were kept, and a refresh token the server refused
    /// with its proof was not spent.
    package static func proofRefused(
        by endpoint: String, statusCode: Int?, answer: OAuthErrorResponse? = nil,
        challenge: AuthenticationChallenge? = nil, body: Data? = nil
    ) -> TokenAuthError {
        let status = statusCode.map { " (HTTP \($0))" } ?? ""
        return TokenAuthError(
            .proofRefused, "The \(endpoint) refused this client's DPoP proof (invalid_dpop_proof)\(status).",
            fix: "The tokens were kept. Check that this machine's clock is right and that the server accepts ES256 "
                + "proofs; if it still refuses them, sign in again to bind the session to a new key.",
            oauthError: answer ?? challenge.map { OAuthErrorResponse(error: "invalid_dpop_proof", errorDescription: $0.errorDescription) },
            statusCode: statusCode, challenge: challenge, body: body)
    }

    /// The key the session's tokens are bound to can never be used here: for a ``ProofKeyProvider`` to throw.
    ///
    /// - Parameter reason: What is wrong with the key, in a sentence ("The TPM key of this session was made by
    ///   another TPM, or before this TPM was cleared."). Never key material.
    public static func proofKeyUnusable(_ reason: String) -> TokenAuthError {
        TokenAuthError(
            .proofKeyUnusable, reason,
            fix: "Sign in again: the new session is bound to a new key. The old tokens cannot be used without their key.")
    }

    /// The session's key cannot be used just now: for a ``ProofKeyProvider`` to throw when its device cannot be
    /// reached or opened.
    ///
    /// - Parameters:
    ///   - reason: What failed, in a sentence. Never key material.
    ///   - fix: What to do, in a sentence ("Add your user to the tss group and log in again.").
    public static func proofKeyUnavailable(_ reason: String, fix: String) -> TokenAuthError {
        TokenAuthError(.proofKeyUnavailable, reason, fix: fix)
    }

    /// Bound tokens, and no ``DPoP`` to sign their proofs with.
    static func proofOfPossessionNotConfigured(_ user: String) -> TokenAuthError {
        proofKeyUnavailable(
            "The session's tokens are bound to a key (DPoP), and this \(user) was made without a DPoP provider.",
            fix: "Give the TokenEndpointClient and the AuthorizedClient the same DPoP value (AuthSession does).")
    }
}
