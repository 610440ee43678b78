#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

extension TokenEndpointClient {
    /// Sends a token request with a DPoP proof from `key` (RFC 9449 §5), as servers answer them: asked for a nonce
    /// (`use_dpop_nonce` with a new `DPoP-Nonce`), it sends once more with it — not a failure; a refused proof
    /// (`invalid_dpop_proof`, 400 or 403) is ``TokenAuthError/Code/proofRefused``, never a refusal of the grant, so a
    /// refresh token is kept and no one is signed out for it.
    func sendProvingPossession(
        _ grant: [(name: String, value: String)], secrets: [String], key: ProofKey
    ) async throws -> TokenResponse {
        guard let dpop else { throw TokenAuthError.proofOfPossessionNotConfigured("token endpoint client") }
        // The nonce the proof carried, not the newest one kept: another request may have kept the nonce this answer
        // asks for since this proof was made, and this request must still be sent again with it.
        var sentNonce: String?
        let proof = { (request: HTTPRequest) in
            sentNonce = dpop.nonce(for: request)
            return try await dpop.proof(for: request, key: key, accessToken: nil, nonce: sentNonce)
        }
        var newNonce = false
        let answered = { (response: HTTPResponse, request: HTTPRequest) in
            dpop.noteNonce(in: response, to: request)
            let given = response.headerFields[DPoP.nonceField]
            newNonce = given.map { !$0.isEmpty && $0 != sentNonce } ?? false
        }
        do {
            return try await sendTokenRequest(grant, secrets: secrets, proof: proof, answered: answered)
        } catch let error as TokenAuthError where error.oauthErrorCode == "use_dpop_nonce" && newNonce {
            do {
                return try await sendTokenRequest(grant, secrets: secrets, proof: proof, answered: answered)
            } catch let error as TokenAuthError {
                throw Self.proofFailure(error)
            }
        } catch let error as TokenAuthError {
            throw Self.proofFailure(error)
        }
    }

    /// A DPoP refusal of the token endpoint as what it is: a proof problem, not a refused grant.
    private static func proofFailure(_ error: TokenAuthError) -> TokenAuthError {
        switch error.oauthErrorCode {
        case "invalid_dpop_proof":
            return .proofRefused(by: "token endpoint", statusCode: error.statusCode, answer: error.oauthError)
        case "use_dpop_nonce":
            // Asked for a nonce again with the one it gave, or without giving one: it takes none of this client's.
            return TokenAuthError(
                .proofRefused,
                "The token endpoint asked for a DPoP nonce (use_dpop_nonce) again after it was sent the one it gave, "
                    + "or gave none.",
                fix: "The tokens were kept. The server's DPoP nonces do not work as RFC 9449 §8 says: report it to its "
                    + "administrators, or sign in without DPoP.",
                oauthError: error.oauthError, statusCode: error.statusCode)
        default:
            return error
        }
    }
}
