/// Makes the keys that sessions' tokens are bound to (DPoP, RFC 9449) and signs proofs with them: the seam between the
/// core, which has no cryptography, and a module that has (`TokenAuthDPoP`'s software keys, `TokenAuthTPM`'s keys).
///
/// ## Implementation requirements
/// - Never put a private key, or anything that signs without the provider, in an error, a log or a description.
/// - ``signer(for:)`` throws ``TokenAuthError`` with ``TokenAuthError/Code/proofKeyUnusable`` when the stored key can
///   never be used here (a TPM key of another machine, or of a TPM cleared since): the session needs a sign-in, and
///   the key is never replaced by another one silently. A device that cannot be reached just now is
///   ``TokenAuthError/Code/proofKeyUnavailable``.
/// - Calls may block on hardware: run them off Swift's cooperative pool.
public protocol ProofKeyProvider: Sendable {
    /// Makes a new key, for a sign-in.
    func makeKey() async throws -> ProofKey

    /// A signer for a stored key.
    func signer(for key: ProofKey) async throws -> any DPoPSigner
}

/// Signs DPoP proofs (RFC 9449 §4.2) with one key.
///
/// ## Implementation requirements
/// Each proof is a JWT with the header `typ` `dpop+jwt`, `alg` `ES256` and the public key as `jwk`, and the claims
/// `jti` (new for each proof), `htm`, `htu`, `iat` (now, by an injected wall clock), `ath` (base64url of the SHA-256
/// of the access token) when one is given and `nonce` when one is given.
public protocol DPoPSigner: Sendable {
    /// The RFC 7638 thumbprint of the public key.
    var thumbprint: String { get }

    /// A proof for one request.
    func proof(for request: DPoPProofRequest) async throws -> String
}

/// What one DPoP proof is for.
public struct DPoPProofRequest: Sendable, Hashable {
    /// The request's method: `htm`.
    public var method: String
    /// The request's URL without query and fragment, as it was configured: `htu`.
    public var url: String
    /// The access token the request carries, for `ath`; `nil` for token requests.
    public var accessToken: String?
    /// The server's newest nonce, or `nil` when it gave none.
    public var nonce: String?

    /// Creates a proof request.
    public init(method: String, url: String, accessToken: String? = nil, nonce: String? = nil) {
        self.method = method
        self.url = url
        self.accessToken = accessToken
        self.nonce = nonce
    }
}

extension DPoPProofRequest: CustomStringConvertible {
    /// The method and URL; never the access token.
    public var description: String {
        "DPoPProofRequest(\(method) \(url)\(accessToken == nil ? "" : ", ath")\(nonce == nil ? "" : ", nonce"))"
    }
}
