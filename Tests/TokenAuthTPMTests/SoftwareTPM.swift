import Crypto
import Foundation
import Testing
import TokenAuthTPM

/// Every suite that uses the software TPM, nested here so that one test of them runs at a time: one suite's
/// TPM2_Clear would make another's keys unusable mid-test (scripts/test also runs them apart from the other suites). A `.serialized`
/// suite runs its nested suites' tests one after another too; the suites beside it (without a TPM) run in parallel.
@Suite(.serialized)
enum SoftwareTPMTests {}

/// The software TPM that scripts/test starts, named by `TPM2TOOLS_TCTI`. Without it the tests that need it fail,
/// never skip: a green run must mean the TPM code ran.
enum SoftwareTPM {
    /// `TPM2TOOLS_TCTI`, or a failed test.
    static func tcti(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(
            ProcessInfo.processInfo.environment["TPM2TOOLS_TCTI"].flatMap { $0.isEmpty ? nil : $0 },
            "TPM2TOOLS_TCTI is not set: run the tests with scripts/test, which starts swtpm and tpm2-abrmd",
            sourceLocation: sourceLocation)
    }

    /// Runs `body` with a device of its own (a connection to the TPM, with transient objects of its own), released
    /// when `body` returns.
    static func withDevice<Result>(
        loadedKeyCapacity: Int = 1, _ body: (TPMDevice) throws -> Result
    ) throws -> Result {
        let device = try TPMDevice(tcti: tcti(), loadedKeyCapacity: loadedKeyCapacity)
        return try body(device)
    }

    /// Clears the TPM with tpm2-tools (TPM2_Clear under the lockout hierarchy, whose auth swtpm leaves empty): a new
    /// owner seed, so a new storage primary, and every key made under the old one unusable.
    static func clear() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tpm2_clear")
        process.arguments = ["-T", try tcti()]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "tpm2_clear failed")
    }
}

/// Checks an `r || s` signature of `message`'s SHA-256 digest against the key's public point, with swift-crypto.
func isValid(_ signature: [UInt8], of message: Data, by key: TPMWrappedKey) throws -> Bool {
    let publicKey = try P256.Signing.PublicKey(rawRepresentation: key.rawPublicKey)
    let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: signature)
    return publicKey.isValidSignature(ecdsa, for: SHA256.hash(data: message))
}

/// The SHA-256 digest of `message`, as `TPMDevice.sign(digest:with:)` takes it.
func digest(_ message: Data) -> [UInt8] {
    Array(SHA256.hash(data: message))
}
