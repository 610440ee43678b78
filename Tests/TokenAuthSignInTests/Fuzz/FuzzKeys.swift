import Crypto
import Foundation
import JWTKit

/// The fuzz keys of `Fuzz/Tools/signed-seeds.py` and the `id-token` and `jwks` targets: an ES256 and an Ed25519
/// key, derived from fixed phrases. Test keys: they protect nothing.
enum FuzzKeys {
    static let es256 = try! P256.Signing.PrivateKey(
        rawRepresentation: hex("e82d6b095f294f1d2469da1cafcf540bd1c9a7bba0c60b00ea92a29e9915e55b"))
    static let eddsa = try! Curve25519.Signing.PrivateKey(
        rawRepresentation: hex("c0b09c00a52a2f327e79aaefb17707722761ef9a775c1a6cb9903b966566a630"))
    /// Their public halves, as the `id-token` target's issuer publishes them.
    static let keySet = """
        {"keys":[{"kty":"EC","crv":"P-256","kid":"fuzz-es256","alg":"ES256","use":"sig",
        "x":"32wkH69wsMWryu4v5mUP7uVt2vilYU04ljK-nLFvnew","y":"g7a-1DbD0hbwGpGYSHONjlLlc0_41mQatEij_4oI-lQ"},
        {"kty":"OKP","crv":"Ed25519","kid":"fuzz-eddsa","x":"eLfpRCKNMEZhqTQENwgdm67AeTKB8h1OdcIhFd9Gl-c"}]}
        """

    /// A valid id_token signed by one fuzz key, and what a key set must hold for it to verify.
    struct Probe: Sendable {
        let token: String
        let kid: String?
        let publishes: @Sendable (JWK) -> Bool
    }

    /// The `jwks` target's tokens: ES256 with and without a `kid`, and EdDSA.
    static func probes() -> [Probe] {
        let claims = #"{"iss":"https://issuer.example","sub":"fuzz-subject","aud":"fuzz-client","iat":1800000000,"exp":1800003600}"#
        func token(_ header: String, sign: (Data) throws -> Data) rethrows -> String {
            let input = base64URL(Data(header.utf8)) + "." + base64URL(Data(claims.utf8))
            return input + "." + base64URL(try sign(Data(input.utf8)))
        }
        let point = es256.publicKey.rawRepresentation
        let isES256 = { @Sendable (jwk: JWK) in
            jwk.keyType == .ecdsa && jwk.curve?.rawValue == "P-256"
                && number(jwk.x) == number(point.prefix(32)) && number(jwk.y) == number(point.suffix(32))
        }
        let isEdDSA = { @Sendable (jwk: JWK) in
            jwk.keyType == .octetKeyPair && jwk.curve?.rawValue == "Ed25519"
                && jwk.x.flatMap(bytes(base64URL:)) == eddsa.publicKey.rawRepresentation
        }
        let ecdsa = { (data: Data) in try es256.signature(for: data).rawRepresentation }
        return [
            Probe(token: try! token(#"{"alg":"ES256","kid":"fuzz-es256"}"#, sign: ecdsa), kid: "fuzz-es256", publishes: isES256),
            Probe(token: try! token(#"{"alg":"ES256"}"#, sign: ecdsa), kid: nil, publishes: isES256),
            Probe(
                token: try! token(#"{"alg":"EdDSA","kid":"fuzz-eddsa"}"#, sign: { try eddsa.signature(for: $0) }),
                kid: "fuzz-eddsa", publishes: isEdDSA),
        ]
    }

    /// Whether `token` is three segments whose signature a fuzz key made over the first two for the header's `alg`,
    /// checked with swift-crypto directly rather than through jwt-kit.
    static func signedByAFuzzKey(_ token: String) -> Bool {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let signature = bytes(base64URL: String(segments[2])) else { return false }
        let signed = Data((segments[0] + "." + segments[1]).utf8)
        switch header(of: token)?["alg"] as? String {
        case "ES256":
            guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return es256.publicKey.isValidSignature(ecdsa, for: signed)
        case "EdDSA":
            return eddsa.publicKey.isValidSignature(signature, for: signed)
        default:
            return false
        }
    }

    /// The JOSE header of `token`, read with JSONSerialization.
    static func header(of token: String) -> [String: Any]? {
        guard let first = token.split(separator: ".", omittingEmptySubsequences: false).first,
            let data = bytes(base64URL: String(first))
        else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// base64url with or without padding; `nil` for anything else.
    static func bytes(base64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.hasSuffix("=") { base64.removeLast() }
        guard !base64.contains("=") else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// A big-endian unsigned number's bytes without leading zeros: the same number however it is padded.
    static func number(_ data: some DataProtocol) -> [UInt8] { Array(data.drop(while: { $0 == 0 })) }

    static func number(_ base64URL: String?) -> [UInt8]? { base64URL.flatMap(bytes(base64URL:)).map { number($0) } }

    private static func hex(_ text: String) -> Data {
        Data(stride(from: 0, to: text.count, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! })
    }
}
