import Synchronization

/// A TPM 2.0, opened through tpm2-tss's ESAPI, that makes ECC P-256 signing keys and signs with them.
///
/// ``TPMProofKeys`` uses one for DPoP; use a device yourself only for other signatures.
///
/// ```swift
/// // On a thread of your own, never on Swift's cooperative pool: every call blocks.
/// guard let tcti = TPMDevice.defaultTCTI(environment: ProcessInfo.processInfo.environment) else { return }
/// let device = try TPMDevice(tcti: tcti)
/// let key = try device.createSigningKey()
/// let stored = (key.publicBlob, key.privateBlob)  // kept where the tokens the key signs for are kept
/// let signingInput = Data("header.claims".utf8)
/// let signature = try device.sign(digest: Array(SHA256.hash(data: signingInput)), with: key)  // r || s
/// ```
///
/// The keys never leave the TPM: a ``TPMWrappedKey`` is the public area and the private part encrypted under the
/// TPM's storage primary key, which TPM2_CreatePrimary derives from the owner seed on first use and keeps loaded
/// while the device lives. A wrapped key loads in any later process on the same TPM, until the TPM is cleared.
///
/// ## Blocking
/// Every method and the initializer block on the TPM: a sign takes milliseconds on a software TPM, and from tens of
/// milliseconds to over a second on a hardware one (more while another process uses it). Call them on a thread of
/// your own or a dispatch queue, never on Swift's cooperative pool, whose few threads would stall every task.
///
/// ## Threads
/// `TPMDevice` is `Sendable`: a `Mutex` serializes every ESAPI call, since an ESAPI context is not thread-safe and the
/// device is meant to be shared (made once, used from whichever thread signs). Calls from several threads wait for
/// each other; a TPM runs one command at a time anyway.
///
/// ## Connections
/// The device holds its TCTI connection until it is released. swtpm serves one TCP connection at a time: a second
/// `TPMDevice` on the same swtpm, in this process or another, waits until the first is released. The kernel's
/// `/dev/tpmrm0` has no such limit, and flushes a process's objects when it exits; with no resource manager
/// (swtpm, `/dev/tpm0`) objects a killed process left loaded stay until the TPM restarts.
public final class TPMDevice: Sendable {
    /// The TCTI this device was opened with, e.g. `device:/dev/tpmrm0`.
    public let tcti: String
    private let context: Mutex<ESAPIContext>

    /// Opens the TPM that `tcti` names, in tpm2-tools' syntax: `device:/dev/tpmrm0`, or
    /// `swtpm:host=127.0.0.1,port=2321` for a software TPM. Nothing is created in the TPM until a key is made or used.
    ///
    /// - Parameters:
    ///   - tcti: The TCTI configuration, e.g. from ``defaultTCTI(environment:devicePath:)``.
    ///   - loadedKeyCapacity: How many signing keys stay loaded between signs (at least 0; 0 loads the key for every
    ///     sign and flushes it after). Keeping the one key an app signs with saves a TPM2_Load on each sign; keep it
    ///     at 2 or less on a TPM without a resource manager, which has about 3 object slots for everyone.
    /// - Throws: ``TPMError/Code/noDevice`` or ``TPMError/Code/permissionDenied`` for a `device:` TCTI whose node is
    ///   missing or not readable and writable; ``TPMError/Code/unreachable`` if the TCTI cannot be opened.
    public init(tcti: String, loadedKeyCapacity: Int = 1) throws(TPMError) {
        if let path = TCTIConfiguration.devicePath(of: tcti) {
            try TCTIConfiguration.checkDevice(path)
        }
        self.tcti = tcti
        self.context = Mutex(try ESAPIContext(tcti: tcti, loadedKeyCapacity: loadedKeyCapacity))
    }

    /// The TPM to use by default: `TPM2TOOLS_TCTI` when set (tpm2-tools' variable and syntax), else
    /// `device:/dev/tpmrm0` when that device exists, else nil: this machine has no TPM that we know of.
    ///
    /// - Parameters:
    ///   - environment: The process's environment, e.g. `ProcessInfo.processInfo.environment`.
    ///   - devicePath: The kernel's TPM device with its resource manager; tests name another.
    public static func defaultTCTI(environment: [String: String], devicePath: String = "/dev/tpmrm0") -> String? {
        TCTIConfiguration.tcti(environment: environment, devicePath: devicePath)
    }

    /// Makes a new ECC P-256 signing key in the TPM, under the owner hierarchy's storage primary key: attributes
    /// exactly ``TPMObjectAttributes/signingKey`` (it never leaves this TPM, and it only signs), ECDSA with SHA-256,
    /// empty auth. Blocks.
    ///
    /// - Returns: The key's blobs and public point, to store. The key is not left loaded.
    /// - Throws: ``TPMError/Code/failed`` if the TPM refuses.
    public func createSigningKey() throws(TPMError) -> TPMWrappedKey {
        try context.withLock { (context) throws(TPMError) -> TPMWrappedKey in
            try context.createSigningKey()
        }
    }

    /// Signs a SHA-256 digest with a key this TPM made, loading the key under the storage primary if it is not
    /// loaded yet. Blocks.
    ///
    /// - Parameters:
    ///   - digest: The 32-byte SHA-256 digest of the message (e.g. a JWS signing input).
    ///   - key: A key made by ``createSigningKey()`` on this TPM, in this process or an earlier one.
    /// - Returns: The ECDSA signature as `r || s`, each big-endian and left-padded to 32 bytes: JOSE's ES256 form,
    ///   and `P256.Signing.ECDSASignature(rawRepresentation:)`'s.
    /// - Throws: ``TPMError/Code/keyUnusable`` if the TPM refuses the blobs (another TPM's, or this TPM was cleared
    ///   since); ``TPMError/Code/failed`` for any other refusal.
    /// - Precondition: `digest` is 32 bytes.
    public func sign(digest: [UInt8], with key: TPMWrappedKey) throws(TPMError) -> [UInt8] {
        precondition(digest.count == 32, "TPMDevice.sign takes a SHA-256 digest (32 bytes), not \(digest.count) bytes")
        return try context.withLock { (context) throws(TPMError) -> [UInt8] in
            try context.sign(digest: digest, with: key)
        }
    }

    /// Loads a stored key into the TPM (TPM2_Load under the storage primary) without signing: proves, before
    /// anything is signed or sent, that this TPM can use the key. The key stays loaded for the next
    /// ``sign(digest:with:)`` as the loaded-key capacity allows. Blocks.
    ///
    /// - Parameter key: A key made by ``createSigningKey()``, on this TPM or, as far as the caller knows, another.
    /// - Throws: ``TPMError/Code/keyUnusable`` if the TPM refuses the blobs (another TPM's, or this TPM was cleared
    ///   since); ``TPMError/Code/failed`` for any other refusal.
    public func load(_ key: TPMWrappedKey) throws(TPMError) {
        try context.withLock { (context) throws(TPMError) in
            try context.load(key)
        }
    }

    /// `count` random bytes from the TPM: the cheapest call there is, to prove the TPM answers.
    func randomBytes(count: UInt16) throws(TPMError) -> [UInt8] {
        try context.withLock { (context) throws(TPMError) -> [UInt8] in
            try context.randomBytes(count: count)
        }
    }
}
