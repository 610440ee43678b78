import CTSS2

/// An ECC P-256 signing key made by a TPM, as the TPM hands it out: its public area, and its private part encrypted
/// under the TPM's storage primary key. Only the TPM that made it, not cleared since, can load and use it.
///
/// Store ``publicBlob`` and ``privateBlob`` (e.g. base64 in a keyring item or a file) and rebuild the key with
/// ``init(publicBlob:privateBlob:)``. The private blob is useless without that TPM, but it is still the key's
/// identity: keep it where the tokens it signs for are kept. ``description`` never shows either blob.
public struct TPMWrappedKey: Sendable, Hashable, CustomStringConvertible {
    /// The marshalled `TPM2B_PUBLIC` (`Tss2_MU_TPM2B_PUBLIC_Marshal`): the public area, with the public point.
    public let publicBlob: [UInt8]
    /// The marshalled `TPM2B_PRIVATE`: the private scalar, encrypted and integrity-protected by the parent key.
    public let privateBlob: [UInt8]
    /// The public point's x coordinate, big-endian, left-padded to 32 bytes.
    public let x: [UInt8]
    /// The public point's y coordinate, big-endian, left-padded to 32 bytes.
    public let y: [UInt8]
    /// The attributes the TPM recorded in the public area, e.g. ``TPMObjectAttributes/signingKey``.
    public let attributes: TPMObjectAttributes

    /// The public key in the x9.63 raw form `x || y` (64 bytes), as `P256.Signing.PublicKey(rawRepresentation:)` and
    /// a JWK's `x` and `y` take it.
    public var rawPublicKey: [UInt8] { x + y }

    /// Rebuilds a stored key, checking that the blobs are a whole TPM2B_PUBLIC and TPM2B_PRIVATE and that the public
    /// area is an ECC P-256 signing key with ECDSA and SHA-256, not restricted and not for decryption.
    ///
    /// Whether the TPM will load it is known only at ``TPMDevice/sign(digest:with:)``.
    ///
    /// - Throws: ``TPMError/Code/invalidKey`` for anything else.
    public init(publicBlob: [UInt8], privateBlob: [UInt8]) throws(TPMError) {
        guard let publicArea = Marshalling.unmarshalPublic(publicBlob) else {
            throw .invalidKey("the public blob is not a marshalled TPM2B_PUBLIC")
        }
        guard let privateArea = Marshalling.unmarshalPrivate(privateBlob), privateArea.size > 0 else {
            throw .invalidKey("the private blob is not a marshalled TPM2B_PRIVATE")
        }
        try self.init(publicArea: publicArea, publicBlob: publicBlob, privateBlob: privateBlob)
    }

    /// A key just made by TPM2_Create: its outputs, marshalled here.
    init(created publicArea: TPM2B_PUBLIC, _ privateArea: TPM2B_PRIVATE) throws(TPMError) {
        let publicBlob = try Marshalling.marshal(publicArea)
        let privateBlob = try Marshalling.marshal(privateArea)
        try self.init(publicArea: publicArea, publicBlob: publicBlob, privateBlob: privateBlob)
    }

    private init(publicArea: TPM2B_PUBLIC, publicBlob: [UInt8], privateBlob: [UInt8]) throws(TPMError) {
        let area = publicArea.publicArea
        guard area.type == TPM2_ALG_ECC, area.parameters.eccDetail.curveID == TPM2_ECC_NIST_P256 else {
            throw .invalidKey("it is not an ECC P-256 key")
        }
        let scheme = area.parameters.eccDetail.scheme
        guard scheme.scheme == TPM2_ALG_ECDSA, scheme.details.ecdsa.hashAlg == TPM2_ALG_SHA256 else {
            throw .invalidKey("its scheme is not ECDSA with SHA-256")
        }
        let attributes = TPMObjectAttributes(rawValue: area.objectAttributes)
        guard attributes.contains(.sign), !attributes.contains(.decrypt), !attributes.contains(.restricted) else {
            throw .invalidKey("its attributes \(attributes) are not those of an unrestricted signing key")
        }
        let point = area.unique.ecc
        guard point.x.size > 0, point.x.size <= 32, point.y.size > 0, point.y.size <= 32,
            let x = Marshalling.bytes(of: point.x.buffer, size: point.x.size),
            let y = Marshalling.bytes(of: point.y.buffer, size: point.y.size)
        else {
            throw .invalidKey("its public point is not a P-256 point")
        }
        self.publicBlob = publicBlob
        self.privateBlob = privateBlob
        self.x = Marshalling.leftPadded(x, to: 32)
        self.y = Marshalling.leftPadded(y, to: 32)
        self.attributes = attributes
    }

    /// The unmarshalled blobs, for TPM2_Load. They were checked at init, so reading them again cannot fail.
    var areas: (public: TPM2B_PUBLIC, private: TPM2B_PRIVATE) {
        guard let publicArea = Marshalling.unmarshalPublic(publicBlob),
            let privateArea = Marshalling.unmarshalPrivate(privateBlob)
        else { preconditionFailure("TPMWrappedKey's blobs were checked at init") }
        return (publicArea, privateArea)
    }

    public var description: String {
        "TPMWrappedKey(ECC P-256 signing key, \(attributes), public blob \(publicBlob.count) bytes, "
            + "private blob \(privateBlob.count) bytes)"
    }
}
