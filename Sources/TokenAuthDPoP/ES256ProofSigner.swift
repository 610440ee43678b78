import Crypto
import Foundation
import TokenAuth

/// Signs DPoP proofs (RFC 9449 §4.2) with a P-256 key through a signing function: the software key's, or a TPM's.
///
/// Each proof is a compact JWS: the header `{"alg":"ES256","jwk":{…},"typ":"dpop+jwt"}` and the claims `jti` (16
/// random bytes), `htm`, `htu`, `iat` (by the injected wall clock), `ath` (base64url SHA-256 of the access token)
/// and `nonce` when the request has them, signed over `header.claims` with ECDSA P-256 SHA-256 (`r‖s`, 64 bytes).
///
/// jwt-kit signs only with keys it holds itself; a TPM key cannot be one, so the proof is written here, and the test
/// server checks it with jwt-kit.
public struct ES256ProofSigner: DPoPSigner {
    /// The RFC 7638 thumbprint of the public key.
    public let thumbprint: String
    private let header: String
    private let wallClock: WallClock
    private let sign: @Sendable (Data) async throws -> Data

    /// Creates a signer.
    ///
    /// - Parameters:
    ///   - x: The public key's x coordinate, 32 bytes.
    ///   - y: The public key's y coordinate, 32 bytes.
    ///   - wallClock: Now, for `iat`.
    ///   - sign: Signs the JWS signing input with ECDSA P-256 over SHA-256, returning `r‖s` (64 bytes).
    public init(x: Data, y: Data, wallClock: @escaping WallClock, sign: @escaping @Sendable (Data) async throws -> Data) {
        let jwk = PublicJWK(crv: "P-256", kty: "EC", x: Base64URL.encode(x), y: Base64URL.encode(y))
        thumbprint = JWKThumbprint.ecP256(x: x, y: y)
        header = Base64URL.encode(Self.json(Header(alg: "ES256", jwk: jwk, typ: "dpop+jwt")))
        self.wallClock = wallClock
        self.sign = sign
    }

    /// A proof for one request.
    public func proof(for request: DPoPProofRequest) async throws -> String {
        // 16 random bytes from two draws of the system's generator (one getrandom(2) each), not sixteen.
        var random = SystemRandomNumberGenerator()
        let jti = withUnsafeBytes(of: (random.next() as UInt64, random.next() as UInt64)) { Base64URL.encode($0) }
        let claims = Claims(
            jti: jti,
            htm: request.method, htu: request.url, iat: Int64(wallClock().timeIntervalSince1970.rounded(.down)),
            ath: request.accessToken.map { Base64URL.encode(SHA256.hash(data: Data($0.utf8))) },
            nonce: request.nonce)
        let signingInput = header + "." + Base64URL.encode(Self.json(claims))
        let signature = try await sign(Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    private struct PublicJWK: Encodable {
        var crv, kty, x, y: String
    }

    private struct Header: Encodable {
        var alg: String
        var jwk: PublicJWK
        var typ: String
    }

    private struct Claims: Encodable {
        var jti, htm, htu: String
        var iat: Int64
        var ath, nonce: String?
    }

    private static func json(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        // In any order: a JWS signs the bytes as written, and readers take JSON objects unordered.
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // Strings and integers only: encoding cannot fail.
        return (try? encoder.encode(value)) ?? Data()
    }
}
