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

    /// Writes to the same attributes are serialised within the process, so that concurrent saves
    /// leave one item, not several. A write waits for its turn at most ``Configuration/timeout``.
    static let writes = KeyedAsyncLock()

    /// Creates a keyring client. It connects lazily, on the first call.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts and the prompt policy.
    ///   - logger: Where each call is logged: the operation and the item (its attribute keys and its `service` and
    ///     `account` values) at trace level, then its duration and outcome (or error code) at debug level. Never a
    ///     secret or another attribute's value.
    public init(configuration: Configuration = Configuration(), logger: Logger = Logger(label: "TokenKeyring.Keyring")) {
        self.configuration = configuration
        self.logger = logger
    }

    // MARK: Reading

    /// Every item that has all of `attributes` (and possibly more), locked ones included, with metadata only.
    ///
    /// Finding none while the default collection is locked is not "none": KeePassXC lists nothing at all while its
    /// database is locked. Then the collection is unlocked (when ``Configuration/prompting`` allows a prompt) and
    /// searched again, or ``KeyringError/Code/locked`` is thrown.
    public func items(matching attributes: [String: String]) async throws -> [KeyringItem] {
        try await logged("search", attributes, outcome: { "\($0.count) items" }) { try await search(attributes) }
    }

    private func search(_ attributes: [String: String]) async throws -> [KeyringItem] {
        if SandboxKeyring.isActive { return try await sandboxCall("searching") { _ in try SandboxKeyring.search(attributes) } }
        return try await withUnlocking {
            try await searchingCall { calls in
                let found = try calls.search(attributes)
                if found.isEmpty { try Self.ensureNothingHidden(attributes, calls: calls) }
                return found
            }
        }
    }

    /// The secret of the item whose attributes are exactly `attributes`, or `nil` when there is none.
    ///
    /// Two D-Bus round trips, as few as libsecret's own `secret_password_lookup` makes. When several items match
    /// exactly (in different collections, say), the most recently modified wins, at one round trip more.
    /// - Throws: ``KeyringError`` — `locked` when that item is locked and cannot be unlocked.
    public func lookup(_ attributes: [String: String]) async throws -> KeyringSecret? {
        try await logged("lookup", attributes, outcome: { $0 == nil ? "absent" : "found" }) { try await find(attributes) }
    }

    private func find(_ attributes: [String: String]) async throws -> KeyringSecret? {
        if SandboxKeyring.isActive { return try await sandboxCall("looking up") { _ in try SandboxKeyring.find(attributes) } }
        return try await withUnlocking {
            try await searchingCall { calls in try Self.find(attributes, calls: calls) }
        }
    }

    /// The one lookup, in one blocking call: ``lookup(_:)`` and ``lookupBlocking(_:)`` run it.
    static func find(_ attributes: [String: String], calls: SecretServiceCalls) throws -> KeyringSecret? {
        try calls.searchForReading(attributes) { found in
            let exact = found.candidates.filter { KeyringItem.attributes($0.attributes, matchExactly: attributes) }
            guard var chosen = exact.first else {
                try Self.ensureNothingHidden(attributes, calls: calls)
                return nil
            }
            if exact.count > 1 {
                let modified = try found.modified(exact.map(\.path))
                chosen = exact.max { lhs, rhs in
                    (modified[lhs.path] ?? .distantPast, lhs.path) < (modified[rhs.path] ?? .distantPast, rhs.path)
                } ?? chosen
            }
            // The service gives no secret for an item that is locked.
            guard !chosen.isLocked, let secret = try found.secret(of: chosen.path) else {
                throw NeedsUnlock(attributes: attributes)
            }
            return KeyringSecret(path: chosen.path, attributes: chosen.attributes, secret: secret)
        }
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
            if SandboxKeyring.isActive {
                return try await sandboxCall("storing") { call in
                    try SandboxKeyring.store(secret, label: label, attributes: attributes, writer: sandboxWriter(call))
                }
            }
            return try await withUnlocking {
                try await searchingCall { calls in
                    try Self.store(secret, label: label, attributes: attributes, in: collection, calls: calls)
                }
            }
        }
    }

    private static func store(
        _ secret: String,
        label: String,
        attributes: [String: String],
        in collection: KeyringCollection,
        calls: SecretServiceCalls
    ) throws -> KeyringItem {
        let exact = try calls.search(attributes).filter { $0.hasExactly(attributes) }
        if exact.contains(where: \.isLocked) { throw NeedsUnlock(attributes: attributes) }
        // The usual case, one item: replace its secret where it is, without resolving the collection.
        // Three round trips in all: the search, the item's properties, the new secret.
        if exact.count == 1, let only = exact.first {
            try calls.replace(at: only.path, secret: secret, label: only.label == label ? nil : label)
            return only
        }
        guard let target = try calls.collection(collection) else {
            throw KeyringError.noDefaultCollection("no collection \(collection)")
        }
        if target.isLocked { throw NeedsUnlock(attributes: attributes, collection: collection) }
        let written: KeyringItem
        if let existing = newest(exact.filter { $0.collectionPath == target.path }) {
            try calls.replace(at: existing.path, secret: secret, label: existing.label == label ? nil : label)
            written = existing
        } else {
            written = try calls.create(inCollectionAt: target.path, attributes: attributes, label: label, secret: secret)
        }
        for duplicate in exact where duplicate.path != written.path {
            try calls.delete(at: duplicate.path)
        }
        return written
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
            if SandboxKeyring.isActive {
                return try await sandboxCall("deleting") { call in try SandboxKeyring.delete(attributes, writer: sandboxWriter(call)) }
            }
            return try await withUnlocking {
                try await searchingCall { calls in
                    let exact = try calls.search(attributes).filter { $0.hasExactly(attributes) }
                    if exact.contains(where: \.isLocked) { throw NeedsUnlock(attributes: attributes) }
                    if exact.isEmpty { try Self.ensureNothingHidden(attributes, calls: calls) }
                    for item in exact { try calls.delete(at: item.path) }
                    return exact.count
                }
            }
        }
    }

    // MARK: Locking

    /// Locks a collection. The Secret Service never prompts to lock.
    public func lock(_ collection: KeyringCollection) async throws {
        if SandboxKeyring.isActive { throw Self.sandboxCannotLock }
        try await call { calls in
            guard let target = try calls.collection(collection) else {
                throw KeyringError.noDefaultCollection("no collection \(collection)")
            }
            try calls.lock(collectionAt: target.path)
        }
    }

    // MARK: Plumbing

    /// Runs `body` on a blocking thread with a connection to the service, bounded by `timeout`.
    func call<T: Sendable>(
        timeout: Duration? = nil,
        _ body: @escaping @Sendable (SecretServiceCalls) throws -> T
    ) async throws -> T {
        try await BlockingCall.run(timeout: timeout ?? configuration.timeout) { cancellable in
            try SecretServiceCalls.with(cancellable, body)
        }
    }

    /// ``call(timeout:_:)`` for an operation that searches.
    ///
    /// KeePassXC, with its default `UnlockBeforeSearch`, answers a search of a locked database only once the user has
    /// closed its unlock dialog. So when the call times out while the default collection says it is locked, the
    /// service is taken to be waiting for that dialog: without prompting that is `locked`; with prompting the call
    /// runs once more with the prompt's time limit, and its timeout says that the keyring may be waiting for the user.
    /// A service that does not answer at all fails the `Locked` question too, and keeps its plain `timedOut`.
    private func searchingCall<T: Sendable>(_ body: @escaping @Sendable (SecretServiceCalls) throws -> T) async throws -> T {
        do {
            return try await call(body)
        } catch let error as KeyringError where error.code == .timedOut {
            let locked = try? await call { calls in try calls.collection(.default)?.isLocked ?? false }
            guard locked == true else { throw error }
            guard configuration.prompting == .allowed else { throw searchWaitsForUnlock }
            do {
                return try await call(timeout: max(configuration.timeout, configuration.promptTimeout), body)
            } catch let again as KeyringError where again.code == .timedOut {
                throw KeyringError.timedOutWaitingForUnlock(after: max(configuration.timeout, configuration.promptTimeout), again.detail)
            }
        }
    }

    /// A search that timed out while the default collection is locked, when prompting is disabled.
    var searchWaitsForUnlock: KeyringError {
        KeyringError.locked(KeyringError.Detail(
            "prompting is disabled, and the Secret Service did not answer a search within \(configuration.timeout) "
                + "while the default collection is locked (KeePassXC waits for its unlock dialog when UnlockBeforeSearch is on)"))
    }

    /// Throws ``NeedsUnlock`` for the default collection when it is locked: KeePassXC lists no items at all, locked
    /// or not, while its database is locked, so an empty search means "nothing stored" only from an unlocked
    /// default collection. Costs one round trip more, on a miss only.
    static func ensureNothingHidden(_ attributes: [String: String], calls: SecretServiceCalls) throws {
        if let collection = try calls.collection(.default), collection.isLocked {
            throw NeedsUnlock(attributes: attributes, collection: .default)
        }
    }

    /// Runs `operation`; if it meets locked objects, unlocks them (prompting, if allowed) and runs it once more.
    private func withUnlocking<T: Sendable>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let needs as NeedsUnlock {
            try await unlock(needs)
            do {
                return try await operation()
            } catch is NeedsUnlock {
                throw KeyringError.locked("still locked after unlocking")
            }
        }
    }

    private func unlock(_ request: NeedsUnlock) async throws {
        guard configuration.prompting == .allowed else {
            throw KeyringError.locked("prompting is disabled")
        }
        let unlocked: Bool
        do {
            unlocked = try await call(timeout: configuration.promptTimeout) { calls in try calls.unlock(request) }
        } catch let error as KeyringError where error.code == .timedOut {
            throw KeyringError.timedOutWaitingForUnlock(after: configuration.promptTimeout, error.detail)
        }
        guard unlocked else { throw KeyringError.locked("the unlock prompt failed or was dismissed") }
    }

    private static func newest(_ items: [KeyringItem]) -> KeyringItem? {
        items.max { lhs, rhs in (lhs.modified, lhs.path) < (rhs.modified, rhs.path) }
    }

    /// The key of ``writes`` for a write to the item with exactly `attributes`.
    static func lockKey(_ attributes: [String: String]) -> String {
        attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\u{0}")
    }
}
