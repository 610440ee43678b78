import Crypto
import Foundation
import TokenAuth

/// DPoP keys made in software: a P-256 key per session, stored in the entry beside the tokens.
///
/// The tokens are bound to the key, so a copy of the access token alone is useless; but the key is in the entry too,
/// so whoever can read the whole entry can use both. Where a TPM 2.0 can be used, `TPMProofKeys` keeps the private
/// key in it instead.
///
/// ```swift
/// let dpop = DPoP(keys: SoftwareProofKeys())
/// ```
public struct SoftwareProofKeys: ProofKeyProvider {
    private let wallClock: WallClock

    /// Creates the provider.
    ///
    /// - Parameter wallClock: Now, for the proofs' `iat`.
    public init(wallClock: @escaping WallClock = systemWallClock) {
        self.wallClock = wallClock
    }

    /// A new P-256 key; its material is the private scalar, base64url.
    public func makeKey() async throws -> ProofKey {
        let key = P256.Signing.PrivateKey()
        let signer = Self.signer(key, wallClock: wallClock)
        return ProofKey(kind: .software, thumbprint: signer.thumbprint, material: Base64URL.encode(key.rawRepresentation))
    }

    /// A signer for a stored software key.
    ///
    /// - Throws: ``TokenAuthError`` with ``TokenAuthError/Code/proofKeyUnusable`` for a key of another kind, or
    ///   whose material is not a P-256 private key or does not match its thumbprint.
    public func signer(for key: ProofKey) async throws -> any DPoPSigner {
        guard key.kind == .software else {
            throw TokenAuthError.proofKeyUnusable(
                "The session's DPoP key is a \(key.kind) key, and this app signs with software keys only.")
        }
        guard let raw = Base64URL.decode(key.material), let privateKey = try? P256.Signing.PrivateKey(rawRepresentation: raw) else {
            throw TokenAuthError.proofKeyUnusable("The session's stored DPoP key is not a P-256 private key.")
        }
        let signer = Self.signer(privateKey, wallClock: wallClock)
        guard signer.thumbprint == key.thumbprint else {
            throw TokenAuthError.proofKeyUnusable("The session's stored DPoP key does not match its thumbprint.")
        }
        return signer
    }

    private static func signer(_ key: P256.Signing.PrivateKey, wallClock: @escaping WallClock) -> ES256ProofSigner {
        let point = key.publicKey.rawRepresentation
        return ES256ProofSigner(x: point.prefix(32), y: point.suffix(32), wallClock: wallClock) { input in
            try key.signature(for: input).rawRepresentation
        }
    }
}
