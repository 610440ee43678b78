import Crypto
import Foundation
import HTTPTypes
import JWTKit
import Testing
import TokenAuth
import TokenAuthDPoP
import TokenAuthTesting

@Suite("DPoP proofs and keys")
struct ProofTests {
    @Test("the thumbprint of RFC 7638 §3.1's example key is the RFC's")
    func rfc7638Example() {
        let n = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        #expect(JWKThumbprint.of(requiredMembers: ["e": "AQAB", "kty": "RSA", "n": n]) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("the thumbprint of RFC 9449's example P-256 key is its jkt")
    func rfc9449Example() throws {
        let x = try #require(Self.base64URL("l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs"))
        let y = try #require(Self.base64URL("9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"))
        #expect(JWKThumbprint.ecP256(x: x, y: y) == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
    }

    @Test("a proof carries the header and claims of RFC 9449 §4.2, and jwt-kit verifies it with its own jwk")
    func claims() async throws {
        let clock = ManualWallClock()
        let keys = SoftwareProofKeys(wallClock: clock.wallClock)
        let key = try await keys.makeKey()
        let signer = try await keys.signer(for: key)
        let request = DPoPProofRequest(
            method: "GET", url: "https://api.example.com/v1/me", accessToken: "access-123", nonce: "n-1")
        let proof = try await signer.proof(for: request)

        let (header, claims) = try await Self.verify(proof)
        #expect(header.typ == "dpop+jwt")
        #expect(header.alg == "ES256")
        #expect(header.jwk["kty"] == "EC" && header.jwk["crv"] == "P-256" && header.jwk["d"] == nil)
        #expect(JWKThumbprint.of(requiredMembers: header.jwk) == key.thumbprint)
        #expect(claims.htm == "GET")
        #expect(claims.htu == "https://api.example.com/v1/me")
        #expect(claims.iat == Int(ManualWallClock.epoch.timeIntervalSince1970))
        #expect(claims.nonce == "n-1")
        let digest = SHA256.hash(data: Data("access-123".utf8))
        #expect(claims.ath == Data(digest).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ""))
        #expect(claims.jti.count >= 16)

        clock.advance(by: 30)
        let second = try await Self.verify(try await signer.proof(for: DPoPProofRequest(method: "POST", url: "https://a/token")))
        #expect(second.claims.jti != claims.jti)
        #expect(second.claims.iat == claims.iat + 30)
        #expect(second.claims.ath == nil && second.claims.nonce == nil)
    }

    @Test("htu is the request's URL without query and fragment, written as it was given")
    func htu() throws {
        let url = try #require(URL(string: "https://Auth.Example.com:8443/Token/Path?x=1&y=2#frag"))
        #expect(DPoP.htu(of: HTTPRequest(method: .post, url: url)) == "https://Auth.Example.com:8443/Token/Path")
        let plain = try #require(URL(string: "http://127.0.0.1:9999/resource"))
        #expect(DPoP.htu(of: HTTPRequest(method: .get, url: plain)) == "http://127.0.0.1:9999/resource")
    }

    @Test("a stored software key signs after a round trip; another kind, a damaged one or a wrong thumbprint are unusable")
    func storedKeys() async throws {
        let keys = SoftwareProofKeys()
        let key = try await keys.makeKey()
        #expect(key.kind == .software)
        #expect(!"\(key)".contains(key.material))
        #expect(try await keys.signer(for: key).thumbprint == key.thumbprint)

        let other = try await keys.makeKey()
        #expect(other.thumbprint != key.thumbprint)
        for broken in [
            ProofKey(kind: .tpm, thumbprint: key.thumbprint, material: key.material),
            ProofKey(kind: .software, thumbprint: key.thumbprint, material: "not-a-key"),
            ProofKey(kind: .software, thumbprint: other.thumbprint, material: key.material),
        ] {
            let error = await #expect(throws: TokenAuthError.self) { try await keys.signer(for: broken) }
            #expect(error?.code == .proofKeyUnusable)
            #expect(error?.isLoginRequired == true)
            #expect(error.map { !"\($0)".contains(key.material) } == true)
        }
    }

    // MARK: Helpers

    struct Header: Decodable {
        var typ: String
        var alg: String
        var jwk: [String: String]
    }

    struct Claims: JWTPayload {
        var jti: String
        var htm: String
        var htu: String
        var iat: Int
        var ath: String?
        var nonce: String?
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// The proof's header, and its claims once jwt-kit verified its signature with the header's `jwk`.
    static func verify(_ proof: String) async throws -> (header: Header, claims: Claims) {
        let parts = proof.split(separator: ".")
        try #require(parts.count == 3)
        let header = try JSONDecoder().decode(Header.self, from: try #require(base64URL(String(parts[0]))))
        let key = try ES256PublicKey(parameters: (x: try #require(header.jwk["x"]), y: try #require(header.jwk["y"])))
        let keys = await JWTKeyCollection().add(ecdsa: key)
        return (header, try await keys.verify(proof, as: Claims.self))
    }

    static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
