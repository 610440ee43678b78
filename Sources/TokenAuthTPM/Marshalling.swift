import CTSS2

/// tpm2-tss's marshalling (MU) of the two blobs a wrapped key is stored as, and the fixed-size byte buffers of
/// TPM2B structures, which Swift sees as tuples.
enum Marshalling {
    /// The TPM wire form of `value` (`Tss2_MU_TPM2B_PUBLIC_Marshal`).
    static func marshal(_ value: TPM2B_PUBLIC) throws(TPMError) -> [UInt8] {
        var copy = value
        return try marshal(capacity: MemoryLayout<TPM2B_PUBLIC>.size, "Tss2_MU_TPM2B_PUBLIC_Marshal") {
            Tss2_MU_TPM2B_PUBLIC_Marshal(&copy, $0, $1, $2)
        }
    }

    /// The TPM wire form of `value` (`Tss2_MU_TPM2B_PRIVATE_Marshal`).
    static func marshal(_ value: TPM2B_PRIVATE) throws(TPMError) -> [UInt8] {
        var copy = value
        return try marshal(capacity: MemoryLayout<TPM2B_PRIVATE>.size, "Tss2_MU_TPM2B_PRIVATE_Marshal") {
            Tss2_MU_TPM2B_PRIVATE_Marshal(&copy, $0, $1, $2)
        }
    }

    /// Reads a whole TPM2B_PUBLIC, or returns nil for anything else: short, long, or malformed.
    static func unmarshalPublic(_ bytes: [UInt8]) -> TPM2B_PUBLIC? {
        var value = TPM2B_PUBLIC()
        return unmarshal(bytes) { Tss2_MU_TPM2B_PUBLIC_Unmarshal($0, $1, $2, &value) } ? value : nil
    }

    /// Reads a whole TPM2B_PRIVATE, or returns nil for anything else.
    static func unmarshalPrivate(_ bytes: [UInt8]) -> TPM2B_PRIVATE? {
        var value = TPM2B_PRIVATE()
        return unmarshal(bytes) { Tss2_MU_TPM2B_PRIVATE_Unmarshal($0, $1, $2, &value) } ? value : nil
    }

    private static func marshal(
        capacity: Int, _ call: String,
        _ body: (UnsafeMutablePointer<UInt8>, Int, UnsafeMutablePointer<Int>) -> TSS2_RC
    ) throws(TPMError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: capacity)
        var offset = 0
        let rc = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, capacity, &offset) }
        try checkTSS2(rc, call)
        return Array(buffer[..<offset])
    }

    /// True if `body` read all of `bytes`, and nothing more.
    private static func unmarshal(
        _ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int, UnsafeMutablePointer<Int>) -> TSS2_RC
    ) -> Bool {
        guard !bytes.isEmpty else { return false }
        var offset = 0
        let rc = bytes.withUnsafeBufferPointer { body($0.baseAddress!, $0.count, &offset) }
        return rc == TSS2_RC_SUCCESS && offset == bytes.count
    }

    /// The first `size` bytes of a TPM2B's fixed buffer (a C array Swift imports as a tuple), or nil if `size` is
    /// larger than the buffer.
    static func bytes<Buffer>(of buffer: Buffer, size: UInt16) -> [UInt8]? {
        withUnsafeBytes(of: buffer) { raw in
            Int(size) <= raw.count ? Array(raw.prefix(Int(size))) : nil
        }
    }

    /// Copies `bytes` into a TPM2B's fixed buffer; the caller has checked that they fit.
    static func fill<Buffer>(_ buffer: inout Buffer, with bytes: [UInt8]) {
        withUnsafeMutableBytes(of: &buffer) { raw in
            precondition(bytes.count <= raw.count, "TPM2B buffer overflow")
            raw.copyBytes(from: bytes)
        }
    }

    /// `bytes` left-padded with zeros to `width` (ECC coordinates and signature halves may be shorter).
    static func leftPadded(_ bytes: [UInt8], to width: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: max(0, width - bytes.count)) + bytes
    }
}
