import CryptoExtras
import Foundation
import JWTKit

/// The keys the server signs `id_token`s with, and the JWK Set it publishes for them.
///
/// The RSA (RS256, `kid` `rs256-1`) and P-256 (ES256, `kid` `es256-1`) keys are generated once per process, the
/// first time a server needs them (an RSA key takes a moment to make; every server in a test run shares them).
/// A foreign RSA key, never published, signs the tokens of the ``OAuthTestServer/IDTokenFault/unknownKey`` and
/// ``OAuthTestServer/IDTokenFault/badSignature`` faults. ``rotated()`` makes a new RSA key with the next `kid`,
/// for one server only.
struct SigningKeys: Sendable {
    /// The `kid` of the published RSA key.
    let rsaKeyID: String
    /// The `kid` of the published P-256 key.
    let ecKeyID: String
    /// The published keys, to sign with.
    let published: JWTKeyCollection
    /// The foreign key under the published RSA key's `kid` and under `unknown-1`, `none` and an HMAC key.
    let foreign: JWTKeyCollection
    /// The JWK Set document: the public halves of the published keys.
    let jwks: Data
    private let generation: Int
    private let ecKey: ES256PrivateKey

    /// The keys every server starts with, made on first use.
    static func initial() async -> SigningKeys {
        await Initial.shared.keys()
    }

    /// Makes the initial collections once (two servers starting together may both make them; either is right).
    private actor Initial {
        static let shared = Initial()
        private var made: SigningKeys?

        func keys() async -> SigningKeys {
            if let made { return made }
            let keys = await SigningKeys.make(generation: 1, rsaKey: Shared.rsa, ecKey: Shared.ec)
            made = keys
            return keys
        }
    }

    private enum Shared {
        static let rsa = newRSAKey()
        static let ec = ES256PrivateKey()
        static let foreign = newRSAKey()
    }

    private static func newRSAKey() -> JWTKit.Insecure.RSA.PrivateKey {
        // swift-crypto generates it; jwt-kit wraps it. 2048 bits is what providers use.
        try! JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    private init(
        rsaKeyID: String, ecKeyID: String, published: JWTKeyCollection, foreign: JWTKeyCollection, jwks: Data,
        generation: Int, ecKey: ES256PrivateKey
    ) {
        self.rsaKeyID = rsaKeyID
        self.ecKeyID = ecKeyID
        self.published = published
        self.foreign = foreign
        self.jwks = jwks
        self.generation = generation
        self.ecKey = ecKey
    }

    /// The same keys with a new RSA key (`rs256-N+1`) in place of the published one, as a provider rotating its
    /// signing key does.
    func rotated() async -> SigningKeys {
        await Self.make(generation: generation + 1, rsaKey: Self.newRSAKey(), ecKey: ecKey)
    }

    private static func make(generation: Int, rsaKey: JWTKit.Insecure.RSA.PrivateKey, ecKey: ES256PrivateKey) async -> SigningKeys {
        let rsaKeyID = "rs256-\(generation)"
        let ecKeyID = "es256-1"
        let published = JWTKeyCollection()
        let foreign = JWTKeyCollection()
        let (modulus, exponent) = try! rsaKey.publicKey.getKeyPrimitives()
        let (x, y) = ecKey.parameters!
        let set = JWKS(keys: [
            .rsa(.rs256, identifier: JWKIdentifier(string: rsaKeyID), modulus: base64URL(modulus), exponent: base64URL(exponent)),
            .ecdsa(.es256, identifier: JWKIdentifier(string: ecKeyID), x: x, y: y, curve: .p256),
        ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let keys = SigningKeys(
            rsaKeyID: rsaKeyID, ecKeyID: ecKeyID, published: published, foreign: foreign,
            jwks: try! encoder.encode(set), generation: generation, ecKey: ecKey)
        await published.add(rsa: rsaKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: rsaKeyID))
        await published.add(ecdsa: ecKey, kid: JWKIdentifier(string: ecKeyID))
        await foreign.add(rsa: Shared.foreign, digestAlgorithm: .sha256, kid: JWKIdentifier(string: rsaKeyID))
        await foreign.add(rsa: Shared.foreign, digestAlgorithm: .sha256, kid: "unknown-1")
        await foreign.add(hmac: HMACKey(from: "a shared secret of at least 32 bytes, as HS256 wants"), digestAlgorithm: .sha256, kid: "hs256")
        await foreign.addUnsecuredNone(kid: "none")
        return keys
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
