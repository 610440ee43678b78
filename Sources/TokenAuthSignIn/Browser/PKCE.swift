import Crypto
import Foundation
import TokenAuth

/// A Proof Key for Code Exchange pair (RFC 7636): the secret verifier, kept by the app, and its S256 challenge,
/// sent with the authorization request.
///
/// The verifier is 32 bytes from the system's cryptographically secure generator, base64url-encoded without
/// padding (43 characters, RFC 7636 §4.1); the challenge is the base64url SHA-256 of the verifier (§4.2). The
/// `plain` method is never used. `description` never shows the verifier.
public struct PKCE: Sendable, Equatable, CustomStringConvertible {
    /// The only challenge method this library sends.
    public static let method = "S256"

    /// The `code_verifier`, sent only to the token endpoint with the authorization code.
    public let verifier: String
    /// The `code_challenge`: base64url(SHA-256(``verifier``)).
    public let challenge: String

    /// Creates a pair with a fresh random verifier.
    public init() {
        var generator = SystemRandomNumberGenerator()
        self.init(verifier: Base64URL.encode(Self.randomBytes(32, using: &generator)))
    }

    /// Creates the pair for a given verifier, for example one of RFC 7636's test vectors.
    public init(verifier: String) {
        self.verifier = verifier
        challenge = Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Shows the challenge only.
    public var description: String { "PKCE(S256, challenge: \(challenge))" }

    static func randomBytes(_ count: Int, using generator: inout some RandomNumberGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// Base64url without padding (RFC 4648 §5), as PKCE, `state` and `nonce` use it.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// 32 random bytes, encoded: an unguessable `state` or `nonce`.
    static func randomValue() -> String {
        var generator = SystemRandomNumberGenerator()
        return encode(PKCE.randomBytes(32, using: &generator))
    }
}
