#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ``Keyring`` on the freedesktop Secret Service (gnome-keyring, KeePassXC, KWallet): every call a blocking operation
/// of ``SecretServiceCalls`` on libsecret's connection, bounded by the timeout, which meets locked items by unlocking
/// them (prompting, when the configuration allows it) and running again.
///
/// Its state is one per process: libsecret's connection and session (which `secret_service_get_sync` shares), and
/// where the items this process used were (``hints``).
struct SecretServiceBackend: KeyringBackend {
    let configuration: Keyring.Configuration
    /// Where this process last found items: lookups and stores ask for them with their search.
    var hints = ItemPathHints.ofThisProcess

    // MARK: Reading

    func items(matching attributes: [String: String]) async throws -> [KeyringItem] {
        try await withUnlocking {
            try await searchingCall { calls in
                let found = try calls.search(attributes)
                if found.isEmpty { try Self.ensureNothingHidden(attributes, calls: calls) }
                return found
            }
        }
    }

    func lookup(_ attributes: [String: String]) async throws -> KeyringSecret? {
        try await withUnlocking {
            // An item found before is read without a blocking thread when it can be (see `hintedLookup`).
            try await searchingCall(first: { try await hintedLookup(attributes).map { .some($0) } }) { calls in
                try find(attributes, calls: calls)
            }
        }
    }

    /// The one lookup, in one blocking call: ``lookup(_:)`` and ``lookupBlocking(_:)`` run it.
    func find(_ attributes: [String: String], calls: SecretServiceCalls) throws -> KeyringSecret? {
        let found = try calls.searchForReading(attributes, hint: hints.path(for: attributes)) { found in
            let exact = found.candidates.filter { KeyringItem.attributes($0.attributes, matchExactly: attributes) }
            guard var chosen = exact.first else {
                try Self.ensureNothingHidden(attributes, calls: calls)
                return KeyringSecret?.none
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
        hints.remember(found?.path, for: attributes)
        return found
    }

    // MARK: Writing

    func store(
        _ secret: String, label: String, attributes: [String: String], in collection: KeyringCollection
    ) async throws -> KeyringItem {
        try await withUnlocking {
            try await searchingCall { calls in
                let written = try store(secret, label: label, attributes: attributes, in: collection, calls: calls)
                hints.remember(written.path, for: attributes)
                return written
            }
        }
    }

    private func store(
        _ secret: String,
        label: String,
        attributes: [String: String],
        in collection: KeyringCollection,
        calls: SecretServiceCalls
    ) throws -> KeyringItem {
        let exact = try calls.search(attributes, hint: hints.path(for: attributes)).filter { $0.hasExactly(attributes) }
        if exact.contains(where: \.isLocked) { throw NeedsUnlock(attributes: attributes) }
        // The usual case, one item: replace its secret where it is, without resolving the collection.
        // Three round trips in all (the search, the item's properties, the new secret), or two where this process
        // found the item before: the search and its properties together, then the new secret.
        if exact.count == 1, let only = exact.first {
            try calls.replace(at: only.path, secret: secret, label: only.label == label ? nil : label)
            return only
        }
        guard let target = try calls.collection(collection) else {
            throw KeyringError.noDefaultCollection("no collection \(collection)")
        }
        if target.isLocked { throw NeedsUnlock(attributes: attributes, collection: collection) }
        let written: KeyringItem
        if let existing = Self.newest(exact.filter { $0.collectionPath == target.path }) {
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

    func delete(_ attributes: [String: String]) async throws -> Int {
        try await withUnlocking {
            try await searchingCall { calls in
                let exact = try calls.search(attributes).filter { $0.hasExactly(attributes) }
                if exact.contains(where: \.isLocked) { throw NeedsUnlock(attributes: attributes) }
                if exact.isEmpty { try Self.ensureNothingHidden(attributes, calls: calls) }
                for item in exact { try calls.delete(at: item.path) }
                hints.remember(nil, for: attributes)
                return exact.count
            }
        }
    }

    private static func newest(_ items: [KeyringItem]) -> KeyringItem? {
        items.max { lhs, rhs in (lhs.modified, lhs.path) < (rhs.modified, rhs.path) }
    }

    // MARK: Locking, changes, diagnosis

    func lock(_ collection: KeyringCollection) async throws {
        try await call { calls in
            guard let target = try calls.collection(collection) else {
                throw KeyringError.noDefaultCollection("no collection \(collection)")
            }
            try calls.lock(collectionAt: target.path)
        }
    }

    func watchChanges() async throws {
        try await call { calls in try ServiceSignals.watch(calls) }
    }

    func diagnose() async -> KeyringDiagnosis {
        await SecretServiceDiagnosis.run(timeout: configuration.timeout)
    }
}
