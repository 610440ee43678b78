import Testing
import TokenAuthTPM

/// Stored blobs are checked when they are read back, without a TPM.
struct TPMWrappedKeyTests {
    @Test(
        "garbage blobs throw invalidKey",
        arguments: [[], [0x00], [0x00, 0x02, 0x00, 0x23], [UInt8](repeating: 0xFF, count: 200), Array(0..<90)]
            as [[UInt8]])
    func garbageThrows(publicBlob: [UInt8]) {
        let error = #expect(throws: TPMError.self) {
            try TPMWrappedKey(publicBlob: publicBlob, privateBlob: [0x00, 0x02, 0xAB, 0xCD])
        }
        #expect(error?.code == .invalidKey)
    }

    @Test("an empty or truncated private blob throws invalidKey")
    func badPrivateBlobThrows() {
        for privateBlob: [UInt8] in [[], [0x00], [0x00, 0x00], [0x00, 0x10, 0x01]] {
            let error = #expect(throws: TPMError.self) {
                try TPMWrappedKey(publicBlob: [0x00, 0x00], privateBlob: privateBlob)
            }
            #expect(error?.code == .invalidKey)
        }
    }

    @Test("the errors say what happened and how to fix it")
    func errorsSayTheFix() {
        let error = #expect(throws: TPMError.self) { try TPMWrappedKey(publicBlob: [1, 2, 3], privateBlob: [4]) }
        #expect(error?.description.contains("Sign in again to make a new key.") == true)
    }
}
