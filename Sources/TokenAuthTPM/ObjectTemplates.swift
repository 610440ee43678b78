import CTSS2

/// The public templates of the two objects this module makes.
enum ObjectTemplates {
    /// The TCG's ECC P-256 storage root key template: a restricted AES-128-CFB decryption key under the owner
    /// hierarchy, NULL scheme and KDF, empty unique. With an empty auth and no outside data, TPM2_CreatePrimary
    /// derives the same key from the owner seed every time, until the TPM is cleared.
    static var storagePrimary: TPM2B_PUBLIC {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPM2_ALG_ECC
        template.publicArea.nameAlg = TPM2_ALG_SHA256
        template.publicArea.objectAttributes = TPMObjectAttributes.storagePrimary.rawValue
        template.publicArea.parameters.eccDetail.symmetric.algorithm = TPM2_ALG_AES
        template.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128
        template.publicArea.parameters.eccDetail.symmetric.mode.aes = TPM2_ALG_CFB
        template.publicArea.parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL
        template.publicArea.parameters.eccDetail.curveID = TPM2_ECC_NIST_P256
        template.publicArea.parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL
        return template
    }

    /// An ECC P-256 signing key, ECDSA with SHA-256 only, that never leaves the TPM: exactly
    /// ``TPMObjectAttributes/signingKey`` (no decrypt, not restricted), empty auth, no policy.
    static var signingKey: TPM2B_PUBLIC {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPM2_ALG_ECC
        template.publicArea.nameAlg = TPM2_ALG_SHA256
        template.publicArea.objectAttributes = TPMObjectAttributes.signingKey.rawValue
        template.publicArea.parameters.eccDetail.symmetric.algorithm = TPM2_ALG_NULL
        template.publicArea.parameters.eccDetail.scheme.scheme = TPM2_ALG_ECDSA
        template.publicArea.parameters.eccDetail.scheme.details.ecdsa.hashAlg = TPM2_ALG_SHA256
        template.publicArea.parameters.eccDetail.curveID = TPM2_ECC_NIST_P256
        template.publicArea.parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL
        return template
    }
}
