import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading one item's secret: its search, and the candidates' attributes with their secrets.
extension SecretServiceCalls {
    /// An item found by ``searchForReading(_:hint:_:)``: what deciding whether to read it needs, and no more.
    struct Candidate {
        let path: String
        let attributes: [String: String]
        let isLocked: Bool
    }

    /// What ``searchForReading(_:hint:_:)`` found. Valid only inside its body.
    struct Readable {
        /// Every item having all of the searched attributes, locked ones included.
        let candidates: [Candidate]
        fileprivate let secrets: OpaquePointer?
        fileprivate let calls: SecretServiceCalls

        /// The secret of the candidate at `path` as UTF-8 text, or `nil` when the service gives none because
        /// the item is locked.
        func secret(of path: String) throws -> String? {
            if let secrets, let encoded = Variant.lookup(secrets, path) {
                defer { g_variant_unref(encoded) }
                return try calls.decodeText(encoded, path: path)
            }
            // Not in the batch (the item was locked or replaced meanwhile): ask for this one alone.
            return try calls.readSecret(at: path)
        }

        /// When the items at `paths` were last modified (one more round trip; only duplicates need it).
        func modified(_ paths: [String]) throws -> [String: Date] {
            let batch = try calls.makeBatch(size: paths.count)
            for (index, path) in paths.enumerated() {
                batch.call(
                    index, path: path, interface: SecretServiceCalls.propertiesInterface, method: "Get",
                    parameters: Variant.getParameters(interface: SecretServiceCalls.itemInterface, property: "Modified"),
                    replyType: "(v)")
            }
            batch.wait()
            var dates: [String: Date] = [:]
            for (index, path) in paths.enumerated() {
                let modified = try batch.take(index, "reading when \(path) changed", skippingMissing: true) { reply in
                    Variant.boxedProperty(reply, type: "t") { Date(timeIntervalSince1970: TimeInterval(g_variant_get_uint64($0))) }
                }
                dates[path] = modified ?? nil  // `nil`: deleted since the search, or no date
            }
            return dates
        }
    }

    /// Searches for items having all of `attributes` to read one of them: two round trips, the search, then every
    /// found item's attributes together with the unlocked items' secrets — or one, when the search finds the item at
    /// `hint` alone, unlocked: its attributes and secret are then asked for in the search's batch (see the top of
    /// `SecretServiceCalls+Search.swift`), as libsecret's `secret_password_lookup` asks for the secret alone after
    /// its search.
    ///
    /// The secrets are fetched before the caller knows which item it wants, to save a round trip; those of items it
    /// does not read are released undecoded. Only the attributes are read, not `GetAll`: gnome-keyring answers each
    /// further property about as slowly as the secret itself.
    func searchForReading<T>(_ attributes: [String: String], hint: String? = nil, _ body: (Readable) throws -> T) throws -> T {
        let found: Found
        if let hint {
            let batch = try makeBatch(size: Self.hintedReadSize)
            sendHintedRead(attributes, hint: hint, in: batch)
            batch.wait()
            switch try takeHintedRead(hint, from: batch) {
            case .read(let candidate, let secrets):
                defer { if let secrets { g_variant_unref(secrets) } }
                return try body(Readable(candidates: [candidate], secrets: secrets, calls: self))
            case .searched(let searched):
                found = searched
            }
        } else {
            found = try searchPaths(attributes)
        }
        let paths = found.paths
        let batch = try makeBatch(size: paths.count + 1)
        for (index, path) in paths.enumerated() { sendGetAttributes(path, in: batch, slot: index) }
        if !found.unlocked.isEmpty { sendGetSecrets(found.unlocked, in: batch, slot: paths.count) }
        batch.wait()
        let candidates = try paths.enumerated().compactMap { index, path in
            try takeCandidate(path, from: batch, slot: index, isLocked: index >= found.unlocked.count)
        }
        let secrets = found.unlocked.isEmpty ? nil : try takeSecrets(from: batch, slot: paths.count)
        defer { if let secrets { g_variant_unref(secrets) } }
        return try body(Readable(candidates: candidates, secrets: secrets, calls: self))
    }

    /// The slots of a hinted read's batch.
    static let hintedReadSize = 3

    /// Sends a search for `attributes` with the calls reading the item at `hint`: its attributes and its secret.
    func sendHintedRead(_ attributes: [String: String], hint: String, in batch: borrowing DBusBatch) {
        sendSearch(attributes, in: batch, slot: 0)
        sendGetAttributes(hint, in: batch, slot: 1)
        sendGetSecrets([hint], in: batch, slot: 2)
    }

    /// What a hinted read's batch gave: the item at the hint, when the search found it alone and unlocked, with the
    /// `a{o(oayays)}` of its secret (`nil`: locked meanwhile) for the caller to release; else what the search found.
    enum HintedRead {
        case read(Candidate, secrets: OpaquePointer?)
        case searched(Found)
    }

    /// The answers of ``sendHintedRead(_:hint:in:)``. CPU only: the batch is done.
    func takeHintedRead(_ hint: String, from batch: borrowing DBusBatch) throws -> HintedRead {
        let found = try takeSearch(from: batch, slot: 0)
        guard found.locked.isEmpty, found.unlocked == [hint],
              let candidate = try takeCandidate(hint, from: batch, slot: 1, isLocked: false)
        else { return .searched(found) }
        return .read(candidate, secrets: try takeSecrets(from: batch, slot: 2))
    }

    /// Sends `Get` of the `Attributes` of the item at `path` into `slot`.
    private func sendGetAttributes(_ path: String, in batch: borrowing DBusBatch, slot: Int) {
        batch.call(
            slot, path: path, interface: Self.propertiesInterface, method: "Get",
            parameters: Variant.getParameters(interface: Self.itemInterface, property: "Attributes"), replyType: "(v)")
    }

    /// The answer of ``sendGetAttributes(_:in:slot:)``; `nil` when the item was deleted since the search.
    private func takeCandidate(_ path: String, from batch: borrowing DBusBatch, slot: Int, isLocked: Bool) throws -> Candidate? {
        try batch.take(slot, "reading the attributes of \(path)", skippingMissing: true) { reply in
            Candidate(path: path, attributes: Variant.boxedProperty(reply, type: "a{ss}", Variant.stringMap) ?? [:], isLocked: isLocked)
        }
    }

    /// Sends `GetSecrets` of the items at `paths` into `slot`.
    private func sendGetSecrets(_ paths: [String], in batch: borrowing DBusBatch, slot: Int) {
        batch.call(
            slot, path: Self.servicePath, interface: Self.serviceInterface, method: "GetSecrets",
            parameters: getSecretsParameters(paths), replyType: "(a{o(oayays)})")
    }

    /// The answer of ``sendGetSecrets(_:in:slot:)``: an `a{o(oayays)}` that keeps its own reference to the reply's
    /// data, for the caller to release; `nil` without it (an item locked or deleted meanwhile), and then
    /// `Readable.secret(of:)` reads one alone.
    private func takeSecrets(from batch: borrowing DBusBatch, slot: Int) throws -> OpaquePointer? {
        do {
            return try batch.take(slot, "reading secrets", skippingMissing: true, Variant.firstChild)
        } catch let failure as GLibFailure where failure.info.kind == .locked {
            return nil
        }
    }
}
