import Crypto
import Foundation
import Synchronization
import TokenAuth
import TokenAuthDPoP

/// DPoP keys made in a TPM 2.0: a P-256 key per session that never leaves the TPM (`fixedTPM`, `fixedParent`).
///
/// ```swift
/// let dpop = DPoP(keys: TPMProofKeys())
/// ```
///
/// The entry beside the tokens holds the key's public area and its private part wrapped by the TPM's storage primary
/// key: only this TPM, not cleared since, can load it. Whoever copies the whole entry to another machine gets tokens
/// bound to a key they cannot sign with. Where no TPM can be used, `SoftwareProofKeys` (TokenAuthDPoP) keeps the key
/// in the entry instead; `TPMAvailability.probe(environment:devicePath:)` tells which, for a `doctor` command.
///
/// ## The TPM
/// The provider opens the TPM on its first call and keeps it open while the provider, a copy of it or a signer it
/// made lives: copies share one device, so one app holds one connection. Opening fails until a TPM can be reached,
/// and is tried again on the next call. Every TPM call blocks (milliseconds on a software TPM, up to a second on a
/// hardware one), so each runs on a serial dispatch queue of the provider's own, never on Swift's cooperative pool.
///
/// ## Errors
/// ``makeKey()``, ``signer(for:)`` and the signers' proofs throw `TokenAuthError`:
/// - `proofKeyUnusable` (the session needs a sign-in): the stored key is not a TPM key, its material is damaged or
///   does not match its thumbprint, or this TPM refuses to load it: it was made by another TPM, or before this TPM was
///   cleared. ``signer(for:)`` loads the key, so this is known before any request is sent.
/// - `proofKeyUnavailable` (try again later): no TPM, no permission to open it, a TCTI that does not connect, or any
///   other TPM failure, with what to do about it.
///
/// No error, log or description holds the key's blobs.
public struct TPMProofKeys: ProofKeyProvider {
    private let connection: TPMConnection
    private let wallClock: WallClock

    /// Creates the provider. Opens nothing yet: the TPM is opened by the first call that needs it.
    ///
    /// - Parameters:
    ///   - tcti: The TPM to use, in tpm2-tools' TCTI syntax (`device:/dev/tpmrm0`, `swtpm:host=127.0.0.1,port=2321`);
    ///     nil for `TPMDevice.defaultTCTI(environment:devicePath:)` of this process's environment:
    ///     `TPM2TOOLS_TCTI` when set, else the kernel's `/dev/tpmrm0`.
    ///   - wallClock: Now, for the proofs' `iat`.
    public init(tcti: String? = nil, wallClock: @escaping WallClock = systemWallClock) {
        self.connection = TPMConnection(tcti: tcti)
        self.wallClock = wallClock
    }

    /// A new P-256 signing key in the TPM. Its material is the key's two TPM blobs, base64url, joined by a dot:
    /// `publicBlob.privateBlob`; nothing in it signs without this TPM.
    ///
    /// - Throws: `TokenAuthError` with `proofKeyUnavailable` when the TPM cannot be opened or refuses.
    public func makeKey() async throws -> ProofKey {
        let key = try await connection.run { (device) throws(TPMError) in try device.createSigningKey() }
        return ProofKey(
            kind: .tpm, thumbprint: JWKThumbprint.ecP256(x: key.x, y: key.y), material: TPMKeyMaterial.encode(key))
    }

    /// A signer for a stored TPM key, once the TPM has loaded it: a key that cannot be used fails here, before
    /// anything is signed or sent.
    ///
    /// - Throws: `TokenAuthError` with `proofKeyUnusable` for a key of another kind, material that is not a TPM
    ///   key or does not match the thumbprint, or a key this TPM refuses; `proofKeyUnavailable` when the TPM cannot
    ///   be opened or fails.
    public func signer(for key: ProofKey) async throws -> any DPoPSigner {
        guard key.kind == .tpm else {
            throw TokenAuthError.proofKeyUnusable(
                "The session's DPoP key is a \(key.kind) key, and this app signs with TPM keys only.")
        }
        let wrapped = try TPMKeyMaterial.decode(key.material)
        guard JWKThumbprint.ecP256(x: wrapped.x, y: wrapped.y) == key.thumbprint else {
            throw TokenAuthError.proofKeyUnusable("The session's stored TPM key does not match its thumbprint.")
        }
        try await connection.run { (device) throws(TPMError) in try device.load(wrapped) }
        let connection = self.connection
        return ES256ProofSigner(x: Data(wrapped.x), y: Data(wrapped.y), wallClock: wallClock) { input in
            let digest = Array(SHA256.hash(data: input))
            let signature = try await connection.run { (device) throws(TPMError) in
                try device.sign(digest: digest, with: wrapped)
            }
            return Data(signature)
        }
    }
}

extension TPMProofKeys: CustomStringConvertible {
    /// The TPM it uses, as configured; never a key.
    public var description: String { "TPMProofKeys(\(connection.tcti ?? "default TPM"))" }
}

/// The provider's one device, opened on first use, and the serial queue every call to it runs on.
///
/// Sendable without `@unchecked`: the device lives in a `Mutex`, and the queue and the TCTI are immutable. The queue
/// also orders the calls, so the mutex is never contended; it is there for the compiler's proof, not for speed.
final class TPMConnection: Sendable {
    let tcti: String?
    private let queue = DispatchQueue(label: "TokenAuthTPM.TPMProofKeys")
    private let device = Mutex<TPMDevice?>(nil)

    init(tcti: String?) {
        self.tcti = tcti
    }

    /// Runs `body` with the device on the queue, off Swift's cooperative pool, and resumes with its result; a
    /// `TPMError` becomes the `TokenAuthError` a provider throws.
    func run<Value: Sendable>(
        _ body: @escaping @Sendable (TPMDevice) throws(TPMError) -> Value
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do throws(TPMError) {
                    continuation.resume(returning: try body(self.openedDevice()))
                } catch {
                    continuation.resume(throwing: error.tokenAuthError)
                }
            }
        }
    }

    /// The device, opened now if it is not open yet. On the queue only.
    private func openedDevice() throws(TPMError) -> TPMDevice {
        dispatchPrecondition(condition: .onQueue(queue))
        return try device.withLock { (device) throws(TPMError) -> TPMDevice in
            if let device { return device }
            let environment = ProcessInfo.processInfo.environment
            guard let tcti = tcti ?? TPMDevice.defaultTCTI(environment: environment) else {
                throw .noDevice(devicePath: TCTIConfiguration.defaultDevicePath)
            }
            let opened = try TPMDevice(tcti: tcti)
            device = opened
            return opened
        }
    }
}

extension TPMError {
    /// What a ``TPMProofKeys`` throws for it: `proofKeyUnusable` when the key itself can never be used here,
    /// `proofKeyUnavailable` with this error's sentences otherwise. Never key material: a `TPMError` holds none.
    var tokenAuthError: TokenAuthError {
        switch code {
        case .keyUnusable:
            return .proofKeyUnusable(
                "The session's TPM key cannot be loaded: it was made by another TPM, or before this TPM was cleared.")
        case .invalidKey:
            return .proofKeyUnusable(reason)
        default:
            var reason = reason
            if let returnCode, let returnCodeText {
                reason += " (TSS2_RC \(TSS2ReturnCode.hex(returnCode)): \(returnCodeText))"
            }
            return .proofKeyUnavailable(reason, fix: fix)
        }
    }
}
