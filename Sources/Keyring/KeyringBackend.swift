import Logging

/// Where a ``Keyring``'s items live, and how its calls reach them: the Secret Service on the session bus
/// (``SecretServiceBackend``), or in a sandbox the app's own keyring file, keyed by the Secret portal
/// (``SandboxBackend``).
///
/// ``Keyring`` chooses one when it is made (``Keyring/BackendChoice``) and never asks again: nothing else branches on
/// the sandbox. It logs every call, refuses a secret over ``Keyring/maximumSecretSize``, and serialises the writes
/// of this process to the same attributes (``Keyring/writes``) before it calls ``store(_:label:attributes:in:)`` or
/// ``delete(_:)``.
///
/// Implementation requirements — each keeps a promise of ``Keyring``'s documentation:
/// - Every call ends within the configuration's timeout (a prompt's own limit aside), and blocking work (libsecret,
///   D-Bus, the file system) runs on a ``BlockingCall`` thread, never on Swift's cooperative pool.
/// - Reads, writes and deletes concern exactly the attributes given (``KeyringItem/attributes(_:matchExactly:)``):
///   an item with further attributes is another tool's, never read, replaced or deleted for them.
/// - A locked item is never reported as absent: unlock it (when the configuration allows a prompt) or throw
///   ``KeyringError/Code/locked``.
/// - Nothing is deleted or overwritten because of an error, and every failure is a ``KeyringError`` made by one of
///   its factories (or `CancellationError`).
protocol KeyringBackend: Sendable {
    /// Every item that has all of `attributes` (and possibly more), locked ones included, with metadata only.
    func items(matching attributes: [String: String]) async throws -> [KeyringItem]

    /// The secret of the item whose attributes are exactly `attributes`, or `nil` when there is none.
    func lookup(_ attributes: [String: String]) async throws -> KeyringSecret?

    /// ``lookup(_:)`` on the calling thread, or ``Keyring/BlockingLookup/needsPrompt`` where only ``lookup(_:)`` can
    /// end the call (a prompt, or a call bounded by abandoning its thread).
    func lookupBlocking(_ attributes: [String: String]) throws -> Keyring.BlockingLookup

    /// Stores `secret` in the one item whose attributes are exactly `attributes` (in place when there is one), and
    /// describes that item. Called in this process's turn for `attributes`.
    func store(
        _ secret: String, label: String, attributes: [String: String], in collection: KeyringCollection
    ) async throws -> KeyringItem

    /// Deletes every item whose attributes are exactly `attributes`; returns how many. Called in this process's turn
    /// for `attributes`.
    func delete(_ attributes: [String: String]) async throws -> Int

    /// Locks `collection`, or throws why this backend cannot.
    func lock(_ collection: KeyringCollection) async throws

    /// Makes the store's announcements of changes reach ``ChangeFanOut`` from now on, or throws why it has none.
    func watchChanges() async throws

    /// Checks, step by step, whether this backend can be used; never throws.
    func diagnose() async -> KeyringDiagnosis
}

extension Keyring {
    /// Which backend a ``Keyring`` uses: chosen once per keyring, when it is made.
    enum BackendChoice: Sendable {
        /// The Secret Service on the session bus.
        case secretService
        /// The app's keyring file in a sandbox, as this process holds it (``AppKeyringFile/ofThisProcess``).
        case sandbox(AppKeyringFile)

        /// This process's: the sandbox's file where libsecret's password API takes its file backend — in a Flatpak
        /// (`/.flatpak-info`) or Snap (`SNAP_NAME`) sandbox, or when `SECRET_BACKEND=file` asks for it — else the
        /// Secret Service. Looked at once, by the first keyring the process makes.
        static let ofThisProcess: BackendChoice = AppKeyringFile.isLibsecretsBackend ? .sandbox(.ofThisProcess) : .secretService

        /// The backend for a keyring with `configuration` and `logger`.
        func make(_ configuration: Configuration, logger: Logger) -> any KeyringBackend {
            switch self {
            case .secretService: SecretServiceBackend(configuration: configuration)
            case .sandbox(let file): SandboxBackend(configuration: configuration, logger: logger, file: file)
            }
        }
    }
}
