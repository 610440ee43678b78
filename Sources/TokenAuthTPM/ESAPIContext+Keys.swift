import CTSS2

extension ESAPIContext {
    /// The owner hierarchy's ECC P-256 storage primary key (``ObjectTemplates/storagePrimary``), made by
    /// TPM2_CreatePrimary on first use and kept loaded until the context ends. The same owner seed gives the same
    /// key, so blobs made under it in one process load under it in the next.
    mutating func primaryHandle() throws(TPMError) -> ESYS_TR {
        if let primary { return primary }
        var sensitive = TPM2B_SENSITIVE_CREATE()
        var template = ObjectTemplates.storagePrimary
        var outsideInfo = TPM2B_DATA()
        var creationPCR = TPML_PCR_SELECTION()
        var handle: ESYS_TR = ESYS_TR_NONE
        var outPublic: UnsafeMutablePointer<TPM2B_PUBLIC>?
        defer { Esys_Free(outPublic) }
        var creationData: UnsafeMutablePointer<TPM2B_CREATION_DATA>?
        defer { Esys_Free(creationData) }
        var creationHash: UnsafeMutablePointer<TPM2B_DIGEST>?
        defer { Esys_Free(creationHash) }
        var creationTicket: UnsafeMutablePointer<TPMT_TK_CREATION>?
        defer { Esys_Free(creationTicket) }
        let rc = Esys_CreatePrimary(
            esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
            &sensitive, &template, &outsideInfo, &creationPCR,
            &handle, &outPublic, &creationData, &creationHash, &creationTicket)
        try checkTSS2(rc, "Esys_CreatePrimary")
        primary = handle
        return handle
    }

    /// A new signing key under the storage primary (TPM2_Create with ``ObjectTemplates/signingKey``). The key is not
    /// loaded: ``sign(digest:with:)`` loads it when it is first used.
    mutating func createSigningKey() throws(TPMError) -> TPMWrappedKey {
        let parent = try primaryHandle()
        var sensitive = TPM2B_SENSITIVE_CREATE()
        var template = ObjectTemplates.signingKey
        var outsideInfo = TPM2B_DATA()
        var creationPCR = TPML_PCR_SELECTION()
        var outPrivate: UnsafeMutablePointer<TPM2B_PRIVATE>?
        defer { Esys_Free(outPrivate) }
        var outPublic: UnsafeMutablePointer<TPM2B_PUBLIC>?
        defer { Esys_Free(outPublic) }
        var creationData: UnsafeMutablePointer<TPM2B_CREATION_DATA>?
        defer { Esys_Free(creationData) }
        var creationHash: UnsafeMutablePointer<TPM2B_DIGEST>?
        defer { Esys_Free(creationHash) }
        var creationTicket: UnsafeMutablePointer<TPMT_TK_CREATION>?
        defer { Esys_Free(creationTicket) }
        let rc = Esys_Create(
            esys, parent, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
            &sensitive, &template, &outsideInfo, &creationPCR,
            &outPrivate, &outPublic, &creationData, &creationHash, &creationTicket)
        try checkTSS2(rc, "Esys_Create")
        guard let outPrivate, let outPublic else { throw .failed("Esys_Create", detail: "no key in the answer") }
        return try TPMWrappedKey(created: outPublic.pointee, outPrivate.pointee)
    }

    /// An ECDSA P-256 signature of a SHA-256 digest as `r || s`, each left-padded to 32 bytes (JOSE's ES256 form).
    mutating func sign(digest: [UInt8], with key: TPMWrappedKey) throws(TPMError) -> [UInt8] {
        let (handle, flushAfterSign) = try loadedHandle(for: key)
        defer { flush(flushAfterSign) }
        return try sign(digest: digest, loaded: handle)
    }

    /// Loads the key if it is not loaded yet, proving that this TPM can use it; it then stays loaded as the cache
    /// allows, for the next sign.
    mutating func load(_ key: TPMWrappedKey) throws(TPMError) {
        let (_, flushAfterUse) = try loadedHandle(for: key)
        flush(flushAfterUse)
    }

    /// The key's loaded handle, from the cache or loaded now, and the handles to flush once it has been used (itself,
    /// with a cache of capacity 0).
    private mutating func loadedHandle(
        for key: TPMWrappedKey
    ) throws(TPMError) -> (handle: ESYS_TR, flushAfterUse: [ESYS_TR]) {
        if let cached = loadedKeys.handle(for: key.publicBlob) { return (cached, []) }
        let handle = try loadUnderPrimary(key)
        let evicted = loadedKeys.insert(handle, for: key.publicBlob)
        if evicted == [handle] { return (handle, evicted) }
        flush(evicted)
        return (handle, [])
    }

    /// Loads a wrapped key under the storage primary (TPM2_Load). If the TPM has no free object slot and keys are
    /// cached, flushes them and tries once more.
    ///
    /// - Throws: ``TPMError/Code/keyUnusable`` when the TPM rejects a parameter, the blobs: after TPM2_Clear (a new
    ///   owner seed, so a new primary) their integrity check fails (TPM_RC_INTEGRITY on parameter 1, 0x1DF).
    private mutating func loadUnderPrimary(_ key: TPMWrappedKey) throws(TPMError) -> ESYS_TR {
        let parent = try primaryHandle()
        var (inPublic, inPrivate) = key.areas
        var handle: ESYS_TR = ESYS_TR_NONE
        var rc = TSS2ReturnCode(
            Esys_Load(esys, parent, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &inPrivate, &inPublic, &handle))
        if rc.isObjectMemoryFull, !loadedKeys.isEmpty {
            flush(loadedKeys.removeAll())
            rc = TSS2ReturnCode(
                Esys_Load(esys, parent, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &inPrivate, &inPublic, &handle))
        }
        guard rc.isSuccess else {
            throw rc.parameterNumber != nil ? .keyUnusable(rc) : .failed("Esys_Load", rc)
        }
        return handle
    }

    /// TPM2_Sign with ECDSA and SHA-256, and a NULL-hierarchy validation ticket (the key is not restricted).
    private func sign(digest: [UInt8], loaded handle: ESYS_TR) throws(TPMError) -> [UInt8] {
        var inDigest = TPM2B_DIGEST()
        inDigest.size = UInt16(digest.count)
        Marshalling.fill(&inDigest.buffer, with: digest)
        var scheme = TPMT_SIG_SCHEME()
        scheme.scheme = TPM2_ALG_ECDSA
        scheme.details.ecdsa.hashAlg = TPM2_ALG_SHA256
        var validation = TPMT_TK_HASHCHECK()
        validation.tag = TPM2_ST_HASHCHECK
        validation.hierarchy = TPM2_RH_NULL
        var signature: UnsafeMutablePointer<TPMT_SIGNATURE>?
        defer { Esys_Free(signature) }
        let rc = Esys_Sign(
            esys, handle, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &inDigest, &scheme, &validation, &signature)
        try checkTSS2(rc, "Esys_Sign")
        guard let signature, signature.pointee.sigAlg == TPM2_ALG_ECDSA else {
            throw .failed("Esys_Sign", detail: "the answer is not an ECDSA signature")
        }
        let ecdsa = signature.pointee.signature.ecdsa
        guard ecdsa.signatureR.size <= 32, ecdsa.signatureS.size <= 32,
            let r = Marshalling.bytes(of: ecdsa.signatureR.buffer, size: ecdsa.signatureR.size),
            let s = Marshalling.bytes(of: ecdsa.signatureS.buffer, size: ecdsa.signatureS.size)
        else {
            throw .failed("Esys_Sign", detail: "the signature's r or s is longer than 32 bytes")
        }
        return Marshalling.leftPadded(r, to: 32) + Marshalling.leftPadded(s, to: 32)
    }
}
