import Crypto
import Foundation

/// RFC 7638 JWK thumbprints of P-256 public keys: what DPoP binds tokens to (`cnf.jkt`, RFC 9449 §6) and what an
/// authorization request's `dpop_jkt` names (RFC 9449 §10).
package enum JWKThumbprint {
    /// The SHA-256 thumbprint of the EC P-256 public key with the coordinates `x` and `y`, base64url without padding.
    ///
    /// The hash input is the key's required members in lexicographic order, without whitespace (RFC 7638 §3.2):
    /// `{"crv":"P-256","kty":"EC","x":"…","y":"…"}`, with `x` and `y` as given (base64url, as in the JWK).
    package static func p256(x: String, y: String) -> String {
        let members = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return base64URL(Data(SHA256.hash(data: Data(members.utf8))))
    }

    /// `data` in base64url without padding (RFC 7515 §2).
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
