import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// Items in the freedesktop Secret Service (gnome-keyring, KeePassXC, KWallet), found by their attributes.
///
/// Every call runs off Swift's cooperative thread pool and is bounded by ``Configuration/timeout``.
/// A locked item is never reported as absent: reads and writes that meet a locked item or collection
/// unlock it (when ``Configuration/prompting`` allows a prompt) or throw ``KeyringError/Code/locked``.
///
/// Lookups and writes match attributes *exactly* (ignoring libsecret's `xdg:schema`), so items that carry
/// further attributes belong to other tools and are never read, replaced or deleted by them.
///
/// ```swift
/// let keyring = Keyring()
/// let attributes = ["service": "example.org", "account": "ada"]
/// try await keyring.store("s3cret", label: "Example", attributes: attributes)
/// let found = try await keyring.lookup(attributes)   // KeyringSecret?
/// ```
public struct Keyring: Sendable {
    /// The largest secret, in UTF-8 bytes, that `store` accepts: `secret-tool lookup` reads no more.
    public static let maximumSecretSize = 8192

    /// What a call may do when it meets a locked item or collection.
    public enum PromptPolicy: Sendable, Hashable {
        /// Ask the Secret Service to unlock, which shows its password prompt on a desktop.
        case allowed
        /// Never prompt: fail at once with ``KeyringError/Code/locked``.
        case never
    }

    /// Timeouts and the prompt policy.
    public struct Configuration: Sendable, Hashable {
        /// The longest any call may wait for the Secret Service, prompts aside.
        public var timeout: Duration
        /// Whether a locked item or collection may be unlocked through the service's prompt.
        public var prompting: PromptPolicy
        /// The longest an unlock prompt may wait for the user.
        public var promptTimeout: Duration

        /// Creates a configuration; the defaults suit a desktop app.
        public init(timeout: Duration = .seconds(5), prompting: PromptPolicy = .allowed, promptTimeout: Duration = .seconds(120)) {
            self.timeout = timeout
            self.prompting = prompting
            self.promptTimeout = promptTimeout
        }
    }

    /// This keyring's configuration.
    public let configuration: Configuration
    /// Where calls are logged; see ``init(configuration:logger:)``.
    let logger: Logger
    /// Where the items live: chosen once, when the keyring is made.
    let backend: any KeyringBackend

    /// Writes to the same attributes are serialised within the process, so that concurrent saves
    /// leave one item, not several. A write waits for its turn at most ``Configuration/timeout``.
    static let writes = KeyedAsyncLock()

    /// Creates a keyring client. It connects lazily, on the first call.
    ///
    /// In a Flatpak or Snap sandbox (``usesSandboxKeyring``) its calls go to the app's own keyring file through the
    /// Secret portal, elsewhere to the Secret Service: the process's choice, made once.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts and the prompt policy.
    ///   - logger: Where each call is logged: the operation and the item (its attribute keys and its `service` and
    ///     `account` values) at trace level, then its duration and outcome (or error code) at debug level. Never a
    ///     secret or another attribute's value.
    public init(configuration: Configuration = Configuration(), logger: Logger = Logger(label: "TokenKeyring.Keyring")) {
        self.init(configuration: configuration, logger: logger, backend: .ofThisProcess)
    }

    /// A keyring client on the backend `choice`, whatever the process's own would be.
    init(configuration: Configuration = Configuration(), logger: Logger = Logger(label: "TokenKeyring.Keyring"), backend choice: BackendChoice) {
        self.configuration = configuration
        self.logger = logger
        self.backend = choice.make(configuration, logger: logger)
    }

    // MARK: Reading

    /// Every item that has all of `attributes` (and possibly more), locked ones included, with metadata only.
    ///
    /// Finding none while the default collection is locked is not "none": KeePassXC lists nothing at all while its
    /// database is locked. Then the collection is unlocked (when ``Configuration/prompting`` allows a prompt) and
    /// searched again, or ``KeyringError/Code/locked`` is thrown.
    public func items(matching attributes: [String: String]) async throws -> [KeyringItem] {
        try await logged("search", attributes, outcome: { "\($0.count) items" }) { try await backend.items(matching: attributes) }
    }

    /// The secret of the item whose attributes are exactly `attributes`, or `nil` when there is none.
    ///
    /// Two D-Bus round trips, as few as libsecret's own `secret_password_lookup` makes. When several items match
    /// exactly (in different collections, say), the most recently modified wins, at one round trip more.
    /// - Throws: ``KeyringError`` — `locked` when that item is locked and cannot be unlocked.
    public func lookup(_ attributes: [String: String]) async throws -> KeyringSecret? {
        try await logged("lookup", attributes, outcome: { $0 == nil ? "absent" : "found" }) { try await backend.lookup(attributes) }
    }

    // MARK: Writing

    /// Stores `secret` as text in the one item whose attributes are exactly `attributes`.
    ///
    /// An existing exact item gets the new secret in place, wherever it is, so a concurrent reader sees the old
    /// secret or the new one, never none. With none, a new item is created in `collection`. With several
    /// (duplicates in different collections), the newest one in `collection` (or a new one there) keeps the
    /// secret and the others are deleted. Items with further attributes are left alone.
    /// - Returns: the item now holding the secret.
    /// - Throws: ``KeyringError`` — `secretTooLarge` over ``maximumSecretSize``; `locked`, `serviceUnavailable`,
    ///   `noDefaultCollection` or `timedOut` otherwise (also when another write to the same attributes in this
    ///   process runs longer than the timeout); `CancellationError` when the task is cancelled. Nothing is deleted
    ///   when the write fails.
    @discardableResult
    public func store(
        _ secret: String,
        label: String,
        attributes: [String: String],
        in collection: KeyringCollection = .default
    ) async throws -> KeyringItem {
        try await logged("store", attributes, outcome: { _ in "stored" }) {
            try await write(secret, label: label, attributes: attributes, in: collection)
        }
    }

    private func write(
        _ secret: String, label: String, attributes: [String: String], in collection: KeyringCollection
    ) async throws -> KeyringItem {
        let size = secret.utf8.count
        guard size <= Self.maximumSecretSize else {
            throw KeyringError.secretTooLarge(size: size, limit: Self.maximumSecretSize)
        }
        return try await Self.writes.withLock(Self.lockKey(attributes), timeout: configuration.timeout) {
            try await backend.store(secret, label: label, attributes: attributes, in: collection)
        }
    }

    /// Deletes every item whose attributes are exactly `attributes`.
    /// - Returns: how many items were deleted (0 when there were none).
    /// - Throws: ``KeyringError`` — `timedOut` also when another write to the same attributes in this process runs
    ///   longer than the timeout; `CancellationError` when the task is cancelled.
    @discardableResult
    public func delete(_ attributes: [String: String]) async throws -> Int {
        try await logged("delete", attributes, outcome: { "\($0) deleted" }) { try await remove(attributes) }
    }

    private func remove(_ attributes: [String: String]) async throws -> Int {
        try await Self.writes.withLock(Self.lockKey(attributes), timeout: configuration.timeout) {
            try await backend.delete(attributes)
        }
    }

    // MARK: Locking

    /// Locks a collection. The Secret Service never prompts to lock.
    /// - Throws: ``KeyringError`` — in a sandbox always: the app's keyring file cannot be locked.
    public func lock(_ collection: KeyringCollection) async throws {
        try await backend.lock(collection)
    }

    // MARK: Diagnosis

    /// Checks, step by step, whether the keyring can be used: on the Secret Service the session bus, a Secret Service
    /// provider on it, a session with it, and the default collection and its lock state; in a sandbox where the
    /// process runs, whether its libsecret has the portal fix, and whether the app's keyring file opens.
    ///
    /// Never prompts and never throws: every outcome, a timeout included, is a check in the result.
    public func diagnose() async -> KeyringDiagnosis {
        await backend.diagnose()
    }

    /// The key of ``writes`` for a write to the item with exactly `attributes`.
    static func lockKey(_ attributes: [String: String]) -> String {
        attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\u{0}")
    }
}
