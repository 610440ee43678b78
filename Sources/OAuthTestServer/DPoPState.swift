import Foundation

/// What the server remembers for DPoP, kept in ``ServerState`` under its one lock: the current nonce
/// (RFC 9449 §8, §9) and the `jti`s of the proofs accepted within their acceptance window (§11.1).
struct DPoPState {
    /// The nonce proofs must carry while ``OAuthTestServer/Configuration/dpopNonces`` is on: random, changed by
    /// ``rotateNonce()``.
    private(set) var nonce = TokenLedger.randomToken()
    /// The `jti`s of accepted proofs, each with the time after which its proof is out of the acceptance window, so
    /// that it could not be accepted again anyway and is forgotten.
    private var seenJTIs: [String: Date] = [:]

    /// What the server's memory says of a proof whose form, signature and claims were checked.
    enum Admission: Equatable {
        /// Accepted: its `jti` is now remembered.
        case admitted
        /// Nonces are on and the proof lacks the current one: the answer is `use_dpop_nonce`.
        case nonceNeeded(description: String)
        /// Its `jti` was seen before: the answer is `invalid_dpop_proof`.
        case replayed
    }

    /// Makes a new nonce; the old one is refused from now on.
    mutating func rotateNonce() -> String {
        nonce = TokenLedger.randomToken()
        return nonce
    }

    /// Admits `proof` unless it lacks the current nonce (when `requireNonce`) or replays a `jti`, and remembers its
    /// `jti` when it is admitted.
    mutating func admit(_ proof: DPoPProof, requireNonce: Bool, now: Date) -> Admission {
        if requireNonce {
            guard let presented = proof.nonce else {
                return .nonceNeeded(description: "The server requires a nonce in DPoP proofs: use the one in DPoP-Nonce.")
            }
            guard presented == nonce else {
                return .nonceNeeded(description: "The DPoP proof's nonce is not the current one: use the one in DPoP-Nonce.")
            }
        }
        seenJTIs = seenJTIs.filter { $0.value >= now }
        guard seenJTIs[proof.jti] == nil else { return .replayed }
        seenJTIs[proof.jti] = max(now, proof.issuedAt).addingTimeInterval(DPoPProof.acceptanceWindow)
        return .admitted
    }
}
