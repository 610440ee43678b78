/// Whether this machine has a TPM this module can use, for a `doctor` command: which TPM ``TPMProofKeys`` would
/// open, or why it would fail, with the fix.
///
/// ```swift
/// switch TPMAvailability.probe(environment: ProcessInfo.processInfo.environment) {
/// case .success(let tcti):
///     print("TPM: \(tcti): DPoP keys can be kept in it")
/// case .failure(let error):
///     print("TPM: none usable (\(error.code)): \(error.reason) \(error.fix)")
/// }
/// ```
///
/// The probe blocks for as long as the TPM takes to answer: call it from a command's own thread or a dispatch queue,
/// not from a task on Swift's cooperative pool. A software TPM serves one connection at a time: a probe waits while
/// another client (a ``TPMProofKeys`` of this process included) holds it.
public enum TPMAvailability {
    /// Finds the TPM to use and proves it works, cheaply: the TCTI from ``TPMDevice/defaultTCTI(environment:devicePath:)``,
    /// for a device node its existence and permissions (before tpm2-tss tries to open it, which would only say
    /// `IO_ERROR`), then a TPM2_GetRandom through it. Makes and loads nothing. Blocks.
    ///
    /// - Parameters:
    ///   - environment: The process's environment; `TPM2TOOLS_TCTI` in it names the TPM.
    ///   - devicePath: The kernel's TPM device with its resource manager; tests name another.
    /// - Returns: The TCTI that works, or why none does: ``TPMError/Code/noDevice``,
    ///   ``TPMError/Code/permissionDenied``, ``TPMError/Code/unreachable`` or ``TPMError/Code/failed``.
    public static func probe(
        environment: [String: String], devicePath: String = "/dev/tpmrm0"
    ) -> Result<String, TPMError> {
        guard let tcti = TPMDevice.defaultTCTI(environment: environment, devicePath: devicePath) else {
            return .failure(.noDevice(devicePath: devicePath))
        }
        do throws(TPMError) {
            let device = try TPMDevice(tcti: tcti, loadedKeyCapacity: 0)
            _ = try device.randomBytes(count: 8)
            return .success(tcti)
        } catch {
            return .failure(error)
        }
    }
}
