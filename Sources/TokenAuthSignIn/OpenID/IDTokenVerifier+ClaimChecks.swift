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

    /// Refuses a key that cannot make a signature of `alg`: another key type, a key published for another algorithm,
    /// or an elliptic curve key on another curve than `alg`'s (RFC 7518 §3.4, RFC 8037 §3.1). jwt-kit would verify
    /// with the key's own algorithm, whatever the header says.
    static func check(_ jwk: JWK, canVerify alg: String, kid: String) throws(SignInError) {
        let family: JWK.KeyType
        let curve: String?
        switch alg {
        case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512": (family, curve) = (.rsa, nil)
        case "ES256": (family, curve) = (.ecdsa, "P-256")
        case "ES384": (family, curve) = (.ecdsa, "P-384")
        case "ES512": (family, curve) = (.ecdsa, "P-521")
        default: (family, curve) = (.octetKeyPair, "Ed25519")
        }
        guard jwk.keyType == family else {
            throw .badSignature("key \"\(SignInError.clean(kid))\" is an \(jwk.keyType.rawValue) key, the token says \(alg)")
        }
        if let curve, jwk.curve?.rawValue != curve {
            let named = jwk.curve.map { SignInError.clean($0.rawValue) } ?? "no curve"
            throw .badSignature("key \"\(SignInError.clean(kid))\" is on \(named), the token says \(alg)")
        }
        if let keyAlg = jwk.algorithm, keyAlg.rawValue != alg {
            throw .badSignature("key \"\(SignInError.clean(kid))\" is for \(keyAlg.rawValue), the token says \(alg)")
        }
    }

    /// The payload of `idToken` once a key of `keys` that can make a signature of `alg` verifies it: the key `kid`
    /// names, or without a `kid` each such key in turn. A key for another algorithm is never tried, so a token's
    /// `alg` always names the signature that was checked.
    static func payload(of idToken: String, alg: String, kid: String?, keys: JWKSCache.Keys) async throws -> IDTokenPayload {
        let candidates: [String]
        if let kid {
            guard let jwk = keys.keys[kid] else { throw SignInError.unknownKey(kid) }
            try check(jwk, canVerify: alg, kid: kid)
            candidates = [kid]
        } else {
            candidates = keys.keys.filter { (try? check($0.value, canVerify: alg, kid: $0.key)) != nil }.keys.sorted()
        }
        for candidate in candidates {
            guard let verifier = keys.verifiers[candidate] else { continue }
            do {
                return try await verifier.verify(idToken, as: IDTokenPayload.self)
            } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
                continue
            } catch let error as JWTError where error.errorType == .malformedToken {
                throw SignInError.malformedIDToken("its claims are not readable, or iss, sub, aud, exp or iat is missing")
            } catch let error as JWTError {
                throw SignInError.badSignature("jwt-kit: \(error.errorType)")
            } catch {
                throw SignInError.badSignature("\(type(of: error))")
            }
        }
        if candidates.isEmpty { throw SignInError.badSignature("no key of the issuer's set is for \(alg)") }
        throw SignInError.badSignature(kid.map { "with key \"\(SignInError.clean($0))\"" } ?? "with any key")
    }
}
