import Crypto
import Foundation
import JWTKit

/// A DPoP proof (RFC 9449 §4.2) whose form, signature and claims were checked against the request that carried it
/// (RFC 9449 §4.3), all but what needs the server's memory: its `jti` unseen and its `nonce` current
/// (``DPoPState``).
struct DPoPProof: Sendable, Equatable {
    /// The RFC 7638 thumbprint of the proof's public key: what tokens issued with it are bound to (`cnf.jkt`).
    var thumbprint: String
    /// The proof's unique identifier.
    var jti: String
    /// The proof's `iat`.
    var issuedAt: Date
    /// The proof's `nonce`, if it carries one.
    var nonce: String?

    /// How far a proof's `iat` may be from the server's clock, either way.
    static let acceptanceWindow: TimeInterval = 60

    /// Why a proof was refused: the `error_description` of the `invalid_dpop_proof` answer.
    struct Refusal: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    /// What a proof must match: its request, and the server's clock.
    struct Expectation: Sendable {
        /// The request's method (`htm`).
        var method: String
        /// The URL the server was asked for, `http://HOST[:PORT]/path` (`htu`, compared without query and fragment).
        var url: String
        /// The access token the request presents at a resource, whose hash `ath` must be; `nil` at the token
        /// endpoint, where `ath` is not looked at.
        var accessToken: String?
        /// The server's notion of now, for `iat`.
        var now: Date
    }

    /// The claims of a proof, each optional so that a missing one is refused by name.
    private struct Claims: JWTPayload {
        var htm: String?
        var htu: String?
        var iat: Double?
        var jti: String?
        var ath: String?
        var nonce: String?

        /// Checks nothing: the claims are checked against the request, which jwt-kit does not know.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// Checks the compact JWS `jws` as the proof of a request that must match `expected`.
    ///
    /// - Throws: ``Refusal``, saying what is wrong.
    static func verify(_ jws: String, against expected: Expectation) async throws -> DPoPProof {
        let header: JWTHeader
        let claims: Claims
        do {
            (header, claims, _) = try DefaultJWTParser().parse(Array(jws.utf8), as: Claims.self)
        } catch {
            throw Refusal(description: "The DPoP proof is not a compact JWS with a JSON header and JSON claims.")
        }
        guard header.typ == "dpop+jwt" else { throw Refusal(description: #"The DPoP proof's typ is not "dpop+jwt"."#) }
        guard header.alg == "ES256" else { throw Refusal(description: "The DPoP proof's alg is not ES256, the only one accepted.") }
        let key = try publicKey(of: header)
        do {
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: key)
            _ = try await keys.verify(jws, as: Claims.self)
        } catch {
            throw Refusal(description: "The DPoP proof's signature does not verify with its jwk.")
        }
        guard let parameters = key.parameters else { throw Refusal(description: "The DPoP proof's jwk has no coordinates.") }
        return DPoPProof(
            thumbprint: JWKThumbprint.p256(x: parameters.x, y: parameters.y),
            jti: try checked(claims, against: expected),
            issuedAt: Date(timeIntervalSince1970: claims.iat ?? 0),
            nonce: claims.nonce
        )
    }

    /// The public key of the header's `jwk`: an EC P-256 public key, with no private part.
    private static func publicKey(of header: JWTHeader) throws -> ES256PublicKey {
        guard let jwk = header.jwk else { throw Refusal(description: "The DPoP proof's header has no jwk object.") }
        guard jwk["d"] == nil else { throw Refusal(description: "The DPoP proof's jwk holds a private key (d).") }
        guard jwk["kty"]?.asString == "EC", jwk["crv"]?.asString == "P-256",
            let x = jwk["x"]?.asString, let y = jwk["y"]?.asString
        else { throw Refusal(description: "The DPoP proof's jwk is not an EC P-256 public key with x and y.") }
        do {
            return try ES256PublicKey(parameters: (x: x, y: y))
        } catch {
            throw Refusal(description: "The DPoP proof's jwk is not a point of P-256.")
        }
    }

    /// Checks `htm`, `htu`, `iat`, `ath` and the presence of `jti`, and returns the `jti`.
    private static func checked(_ claims: Claims, against expected: Expectation) throws -> String {
        guard let jti = claims.jti, !jti.isEmpty else { throw Refusal(description: "The DPoP proof has no jti.") }
        guard claims.htm == expected.method else {
            throw Refusal(description: "The DPoP proof's htm is not the request's method, \(expected.method).")
        }
        guard let htu = claims.htu, sameResource(htu, expected.url) else {
            throw Refusal(description: "The DPoP proof's htu is not the request's URL, \(expected.url).")
        }
        guard let iat = claims.iat else { throw Refusal(description: "The DPoP proof has no iat.") }
        guard abs(Date(timeIntervalSince1970: iat).timeIntervalSince(expected.now)) <= acceptanceWindow else {
            throw Refusal(description: "The DPoP proof's iat is more than \(Int(acceptanceWindow)) seconds from the server's time.")
        }
        if let accessToken = expected.accessToken {
            guard let ath = claims.ath else { throw Refusal(description: "The DPoP proof has no ath (the access token's hash).") }
            guard ath == accessTokenHash(accessToken) else {
                throw Refusal(description: "The DPoP proof's ath is not the hash of the access token presented.")
            }
        }
        return jti
    }

    /// `ath`: base64url(SHA-256(ASCII(token))), RFC 9449 §4.2.
    static func accessTokenHash(_ token: String) -> String {
        JWKThumbprint.base64URL(Data(SHA256.hash(data: Data(token.utf8))))
    }

    /// Whether two URLs name the same resource as RFC 9449 §4.3 compares `htu`: scheme and host case-insensitively,
    /// the port (the scheme's default when absent) and the path exactly, query and fragment ignored.
    static func sameResource(_ claimed: String, _ expected: String) -> Bool {
        func parts(_ text: String) -> (scheme: String, host: String, port: Int, path: String)? {
            guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
                let host = url.host?.lowercased(), !host.isEmpty
            else { return nil }
            let defaultPort = ["http": 80, "https": 443][scheme]
            guard let port = url.port ?? defaultPort else { return nil }
            return (scheme, host, port, url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath)
        }
        guard let claimed = parts(claimed), let expected = parts(expected) else { return false }
        return claimed == expected
    }
}
