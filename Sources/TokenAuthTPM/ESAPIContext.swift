import CTSS2

/// One ESAPI context over one TCTI, and the TPM objects it keeps loaded: the storage primary and the cached signing
/// keys. Every method blocks on the TPM.
///
/// ESAPI contexts are not thread-safe, and neither is this; ``TPMDevice`` keeps it in a `Mutex`. It is noncopyable
/// so that exactly one value owns the C contexts, and its `deinit` flushes the objects and finalizes both.
struct ESAPIContext: ~Copyable {
    /// The `ESYS_CONTEXT*`.
    let esys: OpaquePointer
    /// The `TSS2_TCTI_CONTEXT*` from `Tss2_TctiLdr_Initialize`, which the ESAPI context uses but does not own.
    private let tcti: OpaquePointer
    /// The storage primary key, made on first use.
    var primary: ESYS_TR?
    /// The signing keys loaded under it.
    var loadedKeys: LoadedKeyCache

    /// Opens the TCTI named by `config` (tpm2-tools' syntax, e.g. `device:/dev/tpmrm0`) and an ESAPI context on it.
    ///
    /// - Throws: ``TPMError/Code/unreachable`` if the TCTI cannot be opened; ``TPMError/Code/failed`` if ESAPI
    ///   cannot start on it.
    init(tcti config: String, loadedKeyCapacity: Int) throws(TPMError) {
        var tcti: OpaquePointer?
        let tctiRC = TSS2ReturnCode(Tss2_TctiLdr_Initialize(config, &tcti))
        guard tctiRC.isSuccess, let openedTCTI = tcti else { throw .unreachable(tcti: config, tctiRC) }
        var esys: OpaquePointer?
        let esysRC = TSS2ReturnCode(Esys_Initialize(&esys, openedTCTI, nil))
        guard esysRC.isSuccess, let openedESYS = esys else {
            Tss2_TctiLdr_Finalize(&tcti)
            throw .failed("Esys_Initialize", esysRC)
        }
        self.esys = openedESYS
        self.tcti = openedTCTI
        self.primary = nil
        self.loadedKeys = LoadedKeyCache(capacity: loadedKeyCapacity)
    }

    deinit {
        var loaded = loadedKeys
        flush(loaded.removeAll())
        if let primary { flush([primary]) }
        var esys: OpaquePointer? = esys
        Esys_Finalize(&esys)
        var tcti: OpaquePointer? = tcti
        Tss2_TctiLdr_Finalize(&tcti)
    }

    /// Flushes transient objects from the TPM. A failure is ignored: the object is gone from ESAPI's view either way,
    /// and a resource manager (or the TPM's next Startup) reclaims what a failed flush leaves.
    func flush(_ handles: [ESYS_TR]) {
        for handle in handles {
            _ = Esys_FlushContext(esys, handle)
        }
    }

    /// `count` random bytes from the TPM (TPM2_GetRandom): the cheapest call that proves a TPM answers.
    func randomBytes(count: UInt16) throws(TPMError) -> [UInt8] {
        var random: UnsafeMutablePointer<TPM2B_DIGEST>?
        defer { Esys_Free(random) }
        try checkTSS2(
            Esys_GetRandom(esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, count, &random), "Esys_GetRandom")
        guard let random, let bytes = Marshalling.bytes(of: random.pointee.buffer, size: random.pointee.size) else {
            throw .failed("Esys_GetRandom", detail: "no bytes in the answer")
        }
        return bytes
    }
}
