/// An error from the TPM or from the software that reaches it, with what happened and how to fix it.
///
/// ```swift
/// func signature(of digest: [UInt8], by tpm: TPMDevice, with key: TPMWrappedKey) throws -> [UInt8]? {
///     do throws(TPMError) {
///         return try tpm.sign(digest: digest, with: key)
///     } catch where error.code == .keyUnusable {
///         return nil  // The TPM was cleared, or the key was made by another TPM: make a new key.
///     }
/// }
/// ```
///
/// Compare ``code`` to tell the cases apart. ``reason`` says what happened and ``fix`` what to do; ``description`` is
/// both, with tpm2-tss's decoding of the return code when there is one. No text of it contains key material.
public struct TPMError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure. New kinds may be added; switch over it with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case noDevice, permissionDenied, unreachable, keyUnusable, invalidKey, failed
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// No TPM to use: no `/dev/tpmrm0` and no `TPM2TOOLS_TCTI`.
        public static let noDevice = Code(.noDevice)
        /// The TPM device exists but this user may not open it for reading and writing.
        public static let permissionDenied = Code(.permissionDenied)
        /// The TCTI could not be opened or did not connect: a wrong `TPM2TOOLS_TCTI`, or a simulator that is not running.
        public static let unreachable = Code(.unreachable)
        /// The TPM refused to load the key's blobs: they were made by another TPM, or this TPM was cleared since.
        public static let keyUnusable = Code(.keyUnusable)
        /// The stored blobs are not a TPM-wrapped ECC P-256 signing key: damaged, or not made by this library.
        public static let invalidKey = Code(.invalidKey)
        /// Any other failure of the TPM or of tpm2-tss; ``TPMError/returnCode`` says which.
        public static let failed = Code(.failed)

        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened, in one sentence.
    public let reason: String
    /// What to do about it, in one sentence.
    public let fix: String
    /// The TSS2 return code (`TSS2_RC`) behind the error, when tpm2-tss reported one.
    public let returnCode: UInt32?
    /// tpm2-tss's text for ``returnCode`` (`Tss2_RC_Decode`), e.g. `tpm:parameter(1):integrity check failed`.
    public let returnCodeText: String?

    private init(_ code: Code, reason: String, fix: String, returnCode: TSS2ReturnCode? = nil) {
        self.code = code
        self.reason = reason
        self.fix = fix
        self.returnCode = returnCode?.raw
        self.returnCodeText = returnCode?.text
    }

    public var description: String {
        var text = "\(reason) \(fix)"
        if let returnCode, let returnCodeText {
            text += " (TSS2_RC \(TSS2ReturnCode.hex(returnCode)): \(returnCodeText))"
        }
        return text
    }
}

extension TPMError {
    static func noDevice(devicePath: String) -> TPMError {
        TPMError(
            .noDevice,
            reason: "No TPM was found: \(devicePath) does not exist and TPM2TOOLS_TCTI is not set.",
            fix: "Enable the TPM 2.0 in the firmware settings, or set TPM2TOOLS_TCTI to the TPM to use "
                + "(e.g. swtpm:host=127.0.0.1,port=2321 for a software TPM)."
        )
    }

    static func permissionDenied(devicePath: String) -> TPMError {
        TPMError(
            .permissionDenied,
            reason: "This user may not read and write the TPM device \(devicePath).",
            fix: "Add your user to the tss group (sudo usermod -aG tss $USER) and log in again."
        )
    }

    static func unreachable(tcti: String, _ returnCode: TSS2ReturnCode) -> TPMError {
        TPMError(
            .unreachable,
            reason: "The TPM at \"\(tcti)\" could not be reached.",
            fix: "Check that TPM2TOOLS_TCTI names a TPM that runs (e.g. device:/dev/tpmrm0, or "
                + "swtpm:host=127.0.0.1,port=2321 with swtpm started).",
            returnCode: returnCode
        )
    }

    static func keyUnusable(_ returnCode: TSS2ReturnCode) -> TPMError {
        TPMError(
            .keyUnusable,
            reason: "The TPM refused the stored key: it was made by another TPM, or this TPM was cleared since.",
            fix: "Sign in again to make a new key.",
            returnCode: returnCode
        )
    }

    static func invalidKey(_ detail: String) -> TPMError {
        TPMError(
            .invalidKey,
            reason: "The stored key is not a TPM-wrapped ECC P-256 signing key: \(detail).",
            fix: "Sign in again to make a new key."
        )
    }

    static func failed(_ call: String, _ returnCode: TSS2ReturnCode) -> TPMError {
        let fix =
            returnCode.isObjectMemoryFull
            ? "The TPM has no room for another object: with no resource manager (swtpm, /dev/tpm0) another program "
                + "may have left objects loaded; use /dev/tpmrm0, or restart the software TPM."
            : "Try again; if it persists, report it with this code."
        return TPMError(.failed, reason: "The TPM call \(call) failed.", fix: fix, returnCode: returnCode)
    }

    static func failed(_ call: String, detail: String) -> TPMError {
        TPMError(.failed, reason: "The TPM call \(call) failed: \(detail).", fix: "Report it with this message.")
    }
}
