import Crypto
import Foundation

/// RFC 7638 JWK thumbprints: the SHA-256 of a public key's required members, written as JSON with the members in
/// lexicographic order and no white space, base64url-encoded. DPoP binds tokens to it (`cnf.jkt`, `dpop_jkt`).
public enum JWKThumbprint {
    /// The thumbprint of a P-256 public key given by its coordinates (32 bytes each).
    ///
    /// ```swift
    /// let point = P256.Signing.PrivateKey().publicKey.rawRepresentation  // x ‖ y
    /// let jkt = JWKThumbprint.ecP256(x: point.prefix(32), y: point.suffix(32))
    /// ```
    public static func ecP256<X: Sequence, Y: Sequence>(x: X, y: Y) -> String where X.Element == UInt8, Y.Element == UInt8 {
        of(requiredMembers: ["crv": "P-256", "kty": "EC", "x": Base64URL.encode(x), "y": Base64URL.encode(y)])
    }

    /// The thumbprint of a JWK given by its required members (RFC 7638 §3.2: for EC `crv`, `kty`, `x`, `y`; for
    /// RSA `e`, `kty`, `n`), whose values are strings without characters JSON would escape, as base64url and these
    /// names are.
    public static func of(requiredMembers members: [String: String]) -> String {
        let json = "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",") + "}"
        return Base64URL.encode(SHA256.hash(data: Data(json.utf8)))
    }
}
