import Foundation
import TestSupport
import Testing
import TokenAuthTPM

/// Finding the TPM, without swtpm: the default TCTI, a missing device, a TCTI that does not connect.
struct TPMAvailabilityTests {
    /// A path that is no device on any machine, so that the tests do not depend on this machine's `/dev/tpmrm0`.
    let missingDevice = "/nonexistent/tpmrm0"

    @Test("TPM2TOOLS_TCTI wins; else the device if it exists; else none")
    func defaultTCTI() throws {
        let tcti = "swtpm:host=127.0.0.1,port=2321"
        #expect(TPMDevice.defaultTCTI(environment: ["TPM2TOOLS_TCTI": tcti], devicePath: missingDevice) == tcti)
        #expect(TPMDevice.defaultTCTI(environment: ["TPM2TOOLS_TCTI": ""], devicePath: missingDevice) == nil)
        #expect(TPMDevice.defaultTCTI(environment: [:], devicePath: missingDevice) == nil)
        let existing = FileManager.default.temporaryDirectory.appendingPathComponent("tpmrm-\(UUID())").path
        #expect(FileManager.default.createFile(atPath: existing, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: existing) }
        #expect(TPMDevice.defaultTCTI(environment: [:], devicePath: existing) == "device:\(existing)")
    }

    @Test("with an empty environment and no device, the probe says noDevice")
    func probeWithoutDevice() {
        let result = TPMAvailability.probe(environment: [:], devicePath: missingDevice)
        #expect(result.failureCode == .noDevice)
        #expect(result.failureDescription?.contains("TPM2TOOLS_TCTI") == true)
    }

    @Test("the default device path, on this machine, with an empty environment")
    func probeOnThisMachine() {
        let hasDevice = FileManager.default.fileExists(atPath: "/dev/tpmrm0")
        let result = TPMAvailability.probe(environment: [:])
        if !hasDevice { #expect(result.failureCode == .noDevice) }
    }

    @Test("TPM2TOOLS_TCTI naming a closed port: the probe says unreachable")
    func probeClosedPort() throws {
        let port = try closedLoopbackPort()
        let result = TPMAvailability.probe(
            environment: ["TPM2TOOLS_TCTI": "swtpm:host=127.0.0.1,port=\(port)"], devicePath: missingDevice)
        #expect(result.failureCode == .unreachable)
        print("probe of a closed port: \(result.failureDescription ?? "no error")")
    }

    @Test("a device TCTI for a missing node is noDevice; an unknown TCTI is unreachable")
    func openingErrors() {
        let missing = #expect(throws: TPMError.self) { try TPMDevice(tcti: "device:\(missingDevice)") }
        #expect(missing?.code == .noDevice)
        let unknown = #expect(throws: TPMError.self) { try TPMDevice(tcti: "nosuchtcti:whatever") }
        #expect(unknown?.code == .unreachable)
    }
}

extension Result where Failure == TPMError {
    var failureCode: TPMError.Code? { if case .failure(let error) = self { error.code } else { nil } }
    var failureDescription: String? { if case .failure(let error) = self { error.description } else { nil } }
}
