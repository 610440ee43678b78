import Foundation
import TokenAuth
import TokenAuthDPoP

/// DPoP keys where they are safest on this machine: new keys in the TPM when one can be used (or as ``Preference``
/// says), and stored keys of either kind signed with where they live.
///
/// ```swift
/// let dpop = DPoP(keys: MachineProofKeys())            // the TPM where usable, else software
/// let tpmOnly = DPoP(keys: MachineProofKeys(.tpm))     // a sign-in fails where no TPM can be used
/// ```
///
/// Every process that shares an entry must sign with its key, whoever made it: a session signed in with a TPM key by
/// `tokenctl` is refreshed by an app with the same TPM, and a software key made elsewhere is used as it is. A stored
/// TPM key that cannot be loaded is `proofKeyUnusable` (sign in again): it is never replaced by a software key.
public struct MachineProofKeys: ProofKeyProvider {
    /// Where new keys are made.
    public struct Preference: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable { case automatic, tpm, software }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// In the TPM when one can be opened (``TPMAvailability/probe(environment:devicePath:)``), else in software.
        public static let automatic = Preference(.automatic)
        /// In the TPM: making a key fails with `proofKeyUnavailable` where none can be used.
        public static let tpm = Preference(.tpm)
        /// In software, stored in the entry: the TPM is never opened to make one.
        public static let software = Preference(.software)

        /// The preference's name: `auto`, `tpm` or `software`, as `tokenctl login --dpop-key` spells them.
        public var description: String { base == .automatic ? "auto" : base.rawValue }

        /// The preference named `auto`, `tpm` or `software`; `nil` for any other name.
        public init?(_ name: String) {
            switch name {
            case "auto": self = .automatic
            case "tpm": self = .tpm
            case "software": self = .software
            default: return nil
            }
        }
    }

    /// Where new keys are made.
    public let preference: Preference
    private let environment: [String: String]
    /// Whether the TPM is the one this process's environment names, as another process of the app started with the
    /// same environment would find it (`AuthSession.bootstrap()`'s refreshing process).
    package var usesProcessEnvironment: Bool {
        TPMDevice.defaultTCTI(environment: environment)
            == TPMDevice.defaultTCTI(environment: ProcessInfo.processInfo.environment)
    }
    private let tpm: TPMProofKeys
    private let software: SoftwareProofKeys

    /// Creates the provider. Opens nothing yet.
    ///
    /// - Parameters:
    ///   - preference: Where new keys are made; ``Preference/automatic`` by default.
    ///   - environment: Where `TPM2TOOLS_TCTI` is read: the process's environment by default.
    ///   - wallClock: Now, for the proofs' `iat`.
    public init(
        _ preference: Preference = .automatic, environment: [String: String] = ProcessInfo.processInfo.environment,
        wallClock: @escaping WallClock = systemWallClock
    ) {
        self.preference = preference
        self.environment = environment
        tpm = TPMProofKeys(tcti: TPMDevice.defaultTCTI(environment: environment), wallClock: wallClock)
        software = SoftwareProofKeys(wallClock: wallClock)
    }

    /// A new key: in the TPM or in software, as ``preference`` says.
    ///
    /// - Throws: `TokenAuthError` with `proofKeyUnavailable` when ``Preference/tpm`` finds no TPM it can use.
    public func makeKey() async throws -> ProofKey {
        switch preference {
        case .software:
            return try await software.makeKey()
        case .tpm:
            return try await tpm.makeKey()
        default:
            return try await Self.tpmIsUsable(environment) ? tpm.makeKey() : software.makeKey()
        }
    }

    /// A signer for a stored key, of the kind it is.
    ///
    /// - Throws: `TokenAuthError` with `proofKeyUnusable` for a key of an unknown kind, or one its TPM refuses;
    ///   `proofKeyUnavailable` when a TPM key's TPM cannot be opened.
    public func signer(for key: ProofKey) async throws -> any DPoPSigner {
        switch key.kind {
        case .tpm: return try await tpm.signer(for: key)
        case .software: return try await software.signer(for: key)
        default:
            throw TokenAuthError.proofKeyUnusable("The session's DPoP key is of the unknown kind \"\(key.kind)\".")
        }
    }

    /// Whether a TPM can be opened here: the probe blocks, so it runs on a queue, off Swift's cooperative pool.
    private static func tpmIsUsable(_ environment: [String: String]) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: (try? TPMAvailability.probe(environment: environment).get()) != nil)
            }
        }
    }
}
