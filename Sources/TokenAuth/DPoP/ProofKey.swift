/// The key a session's tokens are bound to by DPoP (RFC 9449), as it is stored with them.
///
/// A sign-in makes it (``ProofKeyProvider/makeKey()``), the store keeps it beside the tokens, and every process that
/// uses the entry signs its proofs with it: the refresh token it binds is refreshed with it, the access tokens it binds
/// are sent with a proof from it. A new sign-in replaces it, a sign-out deletes it with the entry.
///
/// The core never reads its ``material``: the ``ProofKeyProvider`` that made it does. For a software key the material
/// is the private key itself, a secret like a refresh token; for a TPM key it is the key's public area and its private
/// part wrapped by the TPM, which no other TPM can load. ``description`` shows the kind and the thumbprint only.
public struct ProofKey: Sendable, Hashable {
    /// Where the private key lives.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kind's stored name.
        public let rawValue: String
        /// Creates a kind from its stored name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A P-256 key held in the stored entry: whoever can read the entry can sign with it.
        public static let software = Kind(rawValue: "software")
        /// A P-256 key made in a TPM 2.0 that never leaves it (`fixedTPM`, `fixedParent`): the entry holds only its
        /// public part and the TPM-wrapped private part, which only that TPM can load.
        public static let tpm = Kind(rawValue: "tpm")

        /// The kind's stored name.
        public var description: String { rawValue }
    }

    /// Where the private key lives.
    public var kind: Kind
    /// The RFC 7638 thumbprint of the public key (base64url of the SHA-256 of its JWK): the `jkt` the server binds
    /// the tokens to (`cnf.jkt`) and the `dpop_jkt` of an authorization request. Not a secret.
    public var thumbprint: String
    /// What the key's provider needs to sign with it, in the provider's own text form. Never shown or logged.
    public var material: String

    /// Creates a stored key.
    public init(kind: Kind, thumbprint: String, material: String) {
        self.kind = kind
        self.thumbprint = thumbprint
        self.material = material
    }
}

extension ProofKey: CustomStringConvertible, CustomDebugStringConvertible {
    /// The kind and the thumbprint; never the material.
    public var description: String { "ProofKey(\(kind), jkt: \(thumbprint))" }
    /// The same text as ``description``.
    public var debugDescription: String { description }
}
