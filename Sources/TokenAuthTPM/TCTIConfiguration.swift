#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which TPM to open, in tpm2-tools' TCTI syntax (`NAME:CONFIG`, as `TPM2TOOLS_TCTI` and `tpm2_* -T` take it), and
/// the checks on a device node that give a better error than the device TCTI's `IO_ERROR`.
enum TCTIConfiguration {
    /// The kernel's TPM device with its resource manager: many processes may use it at once.
    static let defaultDevicePath = "/dev/tpmrm0"

    /// `TPM2TOOLS_TCTI` when it is set and not empty; else `device:<devicePath>` when that node exists; else nil.
    static func tcti(environment: [String: String], devicePath: String) -> String? {
        if let configured = environment["TPM2TOOLS_TCTI"], !configured.isEmpty { return configured }
        return exists(devicePath) ? "device:\(devicePath)" : nil
    }

    /// The device node a `device` TCTI opens (`device:/dev/tpmrm0`; a bare `device` means tpm2-tss's `/dev/tpm0`), or
    /// nil for any other TCTI.
    static func devicePath(of tcti: String) -> String? {
        if tcti == "device" { return "/dev/tpm0" }
        guard tcti.hasPrefix("device:") else { return nil }
        let path = String(tcti.dropFirst("device:".count))
        return path.isEmpty ? "/dev/tpm0" : path
    }

    /// Throws ``TPMError/Code/noDevice`` if the node is missing, ``TPMError/Code/permissionDenied`` if this process
    /// may not open it for reading and writing (access(2) with R_OK | W_OK, which root always passes).
    static func checkDevice(_ path: String) throws(TPMError) {
        guard exists(path) else { throw .noDevice(devicePath: path) }
        guard access(path, R_OK | W_OK) == 0 else { throw .permissionDenied(devicePath: path) }
    }

    private static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}
