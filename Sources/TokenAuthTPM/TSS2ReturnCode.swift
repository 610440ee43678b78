import CTSS2

/// A `TSS2_RC` from tpm2-tss, read as the TPM 2.0 specification (part 2, §6.6) and tpm2-tss's layers define it.
///
/// tpm2-tss's composite RC macros (`TPM2_RC_INTEGRITY`, `TSS2_TCTI_RC_IO_ERROR`, …) are expressions Swift does not
/// import, so the few numbers needed here are spelled out from the specification.
struct TSS2ReturnCode: Hashable, Sendable {
    let raw: UInt32

    init(_ raw: TSS2_RC) { self.raw = raw }

    var isSuccess: Bool { raw == TSS2_RC_SUCCESS }

    /// The software layer that reported it (bits 16–23): 0 is the TPM itself, 7 ESAPI, 10 a TCTI, 12 the MU layer.
    var layer: UInt32 { (raw >> UInt32(TSS2_RC_LAYER_SHIFT)) & 0xFF }

    /// The TPM's own response code (layer 0 or the resource manager's 11), without the layer.
    private var tpmCode: UInt32? { layer == 0 || layer == 11 ? raw & 0xFFFF : nil }

    /// A TPM format-1 error: one about a given handle, session or parameter (bit 7 set).
    var isTPMFormat1: Bool { tpmCode.map { $0 & TPM2_RC_FMT1 != 0 } ?? false }

    /// For a format-1 error about a parameter (bit 6 set): its number, from 1.
    var parameterNumber: UInt32? {
        guard let code = tpmCode, isTPMFormat1, code & TPM2_RC_P != 0 else { return nil }
        return (code >> 8) & 0xF
    }

    /// The TPM's error number without the handle, session or parameter it names (e.g. 0x09F, TPM_RC_INTEGRITY).
    var tpmErrorNumber: UInt32? {
        guard let code = tpmCode else { return nil }
        return isTPMFormat1 ? code & 0xBF : code & 0xFFF
    }

    /// TPM_RC_OBJECT_MEMORY (0x902): no slot is free for another loaded object.
    var isObjectMemoryFull: Bool { tpmErrorNumber == 0x902 }

    /// tpm2-tss's text for the code (`Tss2_RC_Decode`, which writes to a thread-local buffer, copied here at once).
    var text: String { String(cString: Tss2_RC_Decode(raw)) }

    /// `0x000001df`-style hex for messages.
    static func hex(_ raw: UInt32) -> String {
        let digits = String(raw, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}

/// Throws ``TPMError/failed`` for any return code but success: the one place ordinary ESAPI results are judged.
@inline(__always)
func checkTSS2(_ rc: TSS2_RC, _ call: String) throws(TPMError) {
    let code = TSS2ReturnCode(rc)
    guard code.isSuccess else { throw .failed(call, code) }
}
