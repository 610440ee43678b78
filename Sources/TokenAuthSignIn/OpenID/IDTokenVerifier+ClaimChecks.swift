import Foundation
import JWTKit
import TokenAuth

/// The checks of ``IDTokenVerifier/verify(_:nonce:)`` besides the signature: the claims against this verifier's
/// issuer, client and wall clock, and the key against the token's algorithm.
extension IDTokenVerifier {
    /// The claim checks after the signature, against the wall clock.
    func check(_ claims: IDTokenClaims, nonce: String?) throws(SignInError) {
        if let tenantTemplate {
            guard let tenant = claims.tenantID, let expected = tenantTemplate.filled(with: tenant) else {
                throw .wrongIssuer(
                    expected: "\(tenantTemplate.text) filled with the token's tid", found: claims.issuer,
                    problem: claims.tenantID == nil ? "it has no tid" : "its tid is not a tenant id")
            }
            guard claims.issuer == expected else { throw .wrongIssuer(expected: expected, found: claims.issuer) }
        } else {
            guard claims.issuer == issuer.absoluteString else {
                throw .wrongIssuer(expected: issuer.absoluteString, found: claims.issuer)
            }
        }
        guard !claims.subject.isEmpty else { throw .malformedIDToken("its sub is empty") }
        guard claims.audiences.contains(clientID) else {
            throw .wrongAudience("aud names \(Self.list(claims.audiences)), not \"\(clientID)\"")
        }
        if let azp = claims.authorizedParty {
            guard azp == clientID else { throw .wrongAuthorizedParty(azp) }
        } else if claims.audiences.count > 1 {
            throw .wrongAudience("aud names several audiences (\(Self.list(claims.audiences))) and there is no azp")
        }
        let now = wallClock()
        let skew = allowedClockSkew.timeInterval
        guard claims.expiresAt.timeIntervalSince(now) > -skew else {
            throw .outOfTime(.idTokenExpired, "expired", at: claims.expiresAt, now: now)
        }
        guard claims.issuedAt.timeIntervalSince(now) <= skew else {
            throw .outOfTime(.issuedInFuture, "is issued in the future", at: claims.issuedAt, now: now)
        }
        if let nonce {
            guard let found = claims.nonce else { throw .nonceMismatch("the token has none") }
            guard found == nonce else { throw .nonceMismatch("the token carries another") }
        }
    }

    /// The issuer a verified token is from: ``issuer``, or with a template the tenant's issuer its `iss` names.
    func issuerURL(of claims: IDTokenClaims) -> URL {
        tenantTemplate == nil ? issuer : URL(string: claims.issuer) ?? issuer
    }

    private static func list(_ audiences: [String]) -> String {
        audiences.isEmpty ? "nothing" : audiences.map { "\"\(SignInError.clean($0))\"" }.joined(separator: ", ")
    }

    /// Refuses a key that cannot make a signature of `alg`: another key type, or a key published for another
    /// algorithm (jwt-kit would verify with the key's own algorithm, whatever the header says).
    static func check(_ jwk: JWK, canVerify alg: String, kid: String) throws(SignInError) {
        let family: JWK.KeyType
        switch alg.prefix(2) {
        case "RS", "PS": family = .rsa
        case "ES": family = .ecdsa
        default: family = .octetKeyPair
        }
        guard jwk.keyType == family else {
            throw .badSignature("key \"\(SignInError.clean(kid))\" is an \(jwk.keyType.rawValue) key, the token says \(alg)")
        }
        if let keyAlg = jwk.algorithm, keyAlg.rawValue != alg {
            throw .badSignature("key \"\(SignInError.clean(kid))\" is for \(keyAlg.rawValue), the token says \(alg)")
        }
    }
}
