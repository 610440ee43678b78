import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SecretServiceCalls {
    /// Every item having all of `attributes`, locked ones included, with its metadata. Two round trips: the
    /// search, then every found item's properties together.
    func search(_ attributes: [String: String]) throws -> [KeyringItem] {
        let (unlocked, locked) = try searchPaths(attributes)
        let paths = unlocked + locked
        let batch = try makeBatch(size: paths.count)
        for (index, path) in paths.enumerated() {
            batch.call(
                index, path: path, interface: Self.propertiesInterface, method: "GetAll",
                parameters: Variant.getAllParameters(interface: Self.itemInterface), replyType: "(a{sv})")
        }
        batch.wait()
        return try paths.enumerated().compactMap { index, path in
            // `nil`: deleted since the search.
            try batch.take(index, "reading the properties of \(path)", skippingMissing: true) { Self.item(at: path, from: $0) }
        }
    }

    /// An item found by ``searchForReading(_:_:)``: what deciding whether to read it needs, and no more.
    struct Candidate {
        let path: String
        let attributes: [String: String]
        let isLocked: Bool
    }

    /// What ``searchForReading(_:_:)`` found. Valid only inside its body.
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
    /// found item's attributes together with the unlocked items' secrets.
    ///
    /// The secrets are fetched before the caller knows which item it wants, to save a round trip; those of items it
    /// does not read are released undecoded. Only the attributes are read, not `GetAll`: gnome-keyring answers each
    /// further property about as slowly as the secret itself.
    func searchForReading<T>(_ attributes: [String: String], _ body: (Readable) throws -> T) throws -> T {
        let (unlocked, locked) = try searchPaths(attributes)
        let paths = unlocked + locked
        let batch = try makeBatch(size: paths.count + 1)
        for (index, path) in paths.enumerated() {
            batch.call(
                index, path: path, interface: Self.propertiesInterface, method: "Get",
                parameters: Variant.getParameters(interface: Self.itemInterface, property: "Attributes"), replyType: "(v)")
        }
        if !unlocked.isEmpty {
            batch.call(
                paths.count, path: Self.servicePath, interface: Self.serviceInterface, method: "GetSecrets",
                parameters: getSecretsParameters(unlocked), replyType: "(a{o(oayays)})")
        }
        batch.wait()
        let candidates = try paths.enumerated().compactMap { index, path in
            // `nil`: deleted since the search.
            try batch.take(index, "reading the attributes of \(path)", skippingMissing: true) { reply in
                Candidate(
                    path: path, attributes: Variant.boxedProperty(reply, type: "a{ss}", Variant.stringMap) ?? [:],
                    isLocked: index >= unlocked.count)
            }
        }
        // Without the secrets (an item locked or deleted meanwhile), `Readable.secret(of:)` reads one alone.
        // The `a{o(oayays)}` keeps its own reference to the reply's data.
        var secrets: OpaquePointer?
        if !unlocked.isEmpty {
            do {
                secrets = try batch.take(paths.count, "reading secrets", skippingMissing: true, Variant.firstChild)
            } catch let failure as GLibFailure where failure.info.kind == .locked {
                secrets = nil
            }
        }
        defer { if let secrets { g_variant_unref(secrets) } }
        return try body(Readable(candidates: candidates, secrets: secrets, calls: self))
    }

    /// The paths of the items having all of `attributes`, unlocked and locked ones apart: `SearchItems`.
    ///
    /// No `xdg:schema` is added to the attributes, so items written by `secret-tool store` (which carry none) are
    /// found. Locked items are listed separately, never silently dropped and never prompted for.
    private func searchPaths(_ attributes: [String: String]) throws -> (unlocked: [String], locked: [String]) {
        let found = try callService(
            "SearchItems", Variant.tuple([Variant.stringDictionary(attributes)]), replyType: "(aoao)",
            "searching for items"
        ) { reply in
            (Variant.child(reply, 0, Variant.stringArray), Variant.child(reply, 1, Variant.stringArray))
        }
        return found ?? ([], [])
    }

    /// The item at `path` described by its `GetAll` reply `(a{sv})`.
    static func item(at path: String, from reply: OpaquePointer) -> KeyringItem {
        let properties = Variant.firstChild(reply)
        defer { g_variant_unref(properties) }
        func date(_ key: String) -> Date {
            let seconds = Variant.property(properties, key, type: "t") { g_variant_get_uint64($0) } ?? 0
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        return KeyringItem(
            path: path,
            attributes: Variant.property(properties, "Attributes", type: "a{ss}", Variant.stringMap) ?? [:],
            label: Variant.property(properties, "Label", type: "s", Variant.stringValue) ?? "",
            created: date("Created"),
            modified: date("Modified"),
            isLocked: Variant.property(properties, "Locked", type: "b") { g_variant_get_boolean($0) != 0 } ?? false)
    }
}
