import TokenAuth
import TokenAuthDPoP
import TokenAuthSignIn

extension AuthSession {
    /// Whether a sign-in binds the session's tokens to a key (DPoP, RFC 9449), so that a token copied out of the
    /// keyring is useless without the key's proofs.
    public struct ProofOfPossession: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable { case automatic, required, off }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// DPoP when the issuer's metadata lists ES256 in `dpop_signing_alg_values_supported`, bearer tokens otherwise.
        public static let automatic = ProofOfPossession(.automatic)
        /// DPoP always: a sign-in at an issuer that does not list ES256 fails, with nothing sent.
        public static let required = ProofOfPossession(.required)
        /// Bearer tokens always. Sessions already bound to a key (signed in by another app or `tokenctl`) are still
        /// refreshed and used with their key.
        public static let off = ProofOfPossession(.off)

        /// The choice's name.
        public var description: String { base.rawValue }
    }

    /// Throws unless a sign-in that ``ProofOfPossession/required`` DPoP got DPoP tokens: a server that advertises DPoP
    /// may still answer a client it is not enabled for with bearer tokens, which are not stored then.
    package nonisolated func checkBinding(of credentials: StoredCredentials) throws {
        guard configuration.proofOfPossession == .required, !credentials.auth.isDPoPBound else { return }
        throw TokenAuthError(
            .invalidClientConfiguration,
            "This session requires DPoP, and the issuer answered the sign-in with \(credentials.auth.tokenType) tokens: "
                + "it did not bind them to the key. Nothing was stored.",
            fix: "Enable DPoP for this client at the provider, or set proofOfPossession to .automatic.")
    }

    /// The proof of possession a sign-in at the issuer of `metadata` binds its tokens with, or `nil` for bearer
    /// tokens.
    ///
    /// - Throws: `TokenAuthError.Code.invalidClientConfiguration` with ``ProofOfPossession/required`` at
    ///   an issuer that does not list ES256 for DPoP.
    func signInProof(at metadata: AuthorizationServerMetadata) throws -> DPoP? {
        switch configuration.proofOfPossession {
        case .off:
            return nil
        case .required where !metadata.supportsDPoP:
            throw TokenAuthError(
                .invalidClientConfiguration,
                "This session requires DPoP, and the issuer \(metadata.issuer) does not list ES256 in "
                    + "dpop_signing_alg_values_supported: it would not bind the tokens to a key.",
                fix: "Sign in at an issuer that supports DPoP with ES256, or set proofOfPossession to .automatic or .off.")
        default:
            return metadata.supportsDPoP ? configuration.manager.dpop : nil
        }
    }
}
