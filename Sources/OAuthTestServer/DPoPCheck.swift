import Foundation
import HTTPTypes
import Hummingbird

/// The DPoP proof of one request to the token endpoint or the resource, checked in full (RFC 9449 §4.3): its
/// `DPoP` header, the proof itself (``DPoPProof``), then the server's memory (``DPoPState``).
struct DPoPCheck: Sendable {
    let state: ServerState

    /// What the request's proof amounts to.
    enum Outcome: Equatable {
        /// The request has no `DPoP` header.
        case absent
        /// A valid proof, now spent (its `jti` is remembered).
        case valid(DPoPProof)
        /// The proof is refused: `invalid_dpop_proof`, with this description.
        case refused(String)
        /// The proof lacks the current nonce: `use_dpop_nonce`, with this description.
        case nonceNeeded(String)
    }

    /// Checks the proof of `request`.
    ///
    /// - Parameter accessToken: The access token the request presents at the resource, which the proof's `ath`
    ///   must hash; `nil` at the token endpoint.
    func check(_ request: Request, accessToken: String?) async -> Outcome {
        let values = request.headers[values: .dpop]
        guard let jws = values.first else { return .absent }
        guard values.count == 1 else { return .refused("The request carries \(values.count) DPoP headers; one is allowed.") }
        let configuration = state.configuration
        let now = configuration.clock()
        let expected = DPoPProof.Expectation(
            method: request.method.rawValue,
            url: "http://\(request.head.authority ?? configuration.host)\(request.uri.path)",
            accessToken: accessToken,
            now: now
        )
        let proof: DPoPProof
        do {
            proof = try await DPoPProof.verify(jws, against: expected)
        } catch let refusal as DPoPProof.Refusal {
            return .refused(refusal.description)
        } catch {
            return .refused("The DPoP proof could not be checked.")
        }
        switch state.withLock({ $0.dpop.admit(proof, requireNonce: configuration.dpopNonces, now: now) }) {
        case .admitted: return .valid(proof)
        case .nonceNeeded(let description): return .nonceNeeded(description)
        case .replayed: return .refused("The DPoP proof's jti was used before: every request needs a new proof.")
        }
    }
}

extension HTTPField.Name {
    /// `DPoP`, the request header that carries a proof (RFC 9449 §4.1).
    static var dpop: Self { Self("DPoP")! }
    /// `DPoP-Nonce`, the response header with the nonce proofs must carry (RFC 9449 §8.1).
    static var dpopNonce: Self { Self("DPoP-Nonce")! }
}
