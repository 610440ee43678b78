import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Searching: `SearchItems`, then the found items' properties — in the search's own batch for the item where this
/// process last found the one it wants (a *hint*), so that its answers arrive with the search's.
///
/// A hint only chooses what to ask for: everything used is read fresh, in the same round as the search, and used only
/// when the search found that item alone. A wrong hint (the item was replaced, deleted or joined by another) costs
/// its calls' answers and nothing more: the found items are then read as without a hint.
extension SecretServiceCalls {
    /// What `SearchItems` found: the paths of the items having all of the attributes, unlocked and locked ones apart.
    struct Found {
        let unlocked: [String]
        let locked: [String]
        var paths: [String] { unlocked + locked }
    }

    /// Every item having all of `attributes`, locked ones included, with its metadata. Two round trips: the
    /// search, then every found item's properties together; one when the search finds the item at `hint` alone.
    func search(_ attributes: [String: String], hint: String? = nil) throws -> [KeyringItem] {
        let found: Found
        if let hint {
            let batch = try makeBatch(size: 2)
            sendSearch(attributes, in: batch, slot: 0)
            sendGetAll(hint, in: batch, slot: 1)
            batch.wait()
            found = try takeSearch(from: batch, slot: 0)
            if found.paths == [hint], let item = try takeItem(hint, from: batch, slot: 1) { return [item] }
        } else {
            found = try searchPaths(attributes)
        }
        let paths = found.paths
        let batch = try makeBatch(size: paths.count)
        for (index, path) in paths.enumerated() { sendGetAll(path, in: batch, slot: index) }
        batch.wait()
        return try paths.enumerated().compactMap { index, path in try takeItem(path, from: batch, slot: index) }
    }

    /// The paths of the items having all of `attributes`, unlocked and locked ones apart: `SearchItems`, alone.
    func searchPaths(_ attributes: [String: String]) throws -> Found {
        let batch = try makeBatch(size: 1)
        sendSearch(attributes, in: batch, slot: 0)
        batch.wait()
        return try takeSearch(from: batch, slot: 0)
    }

    /// Sends `SearchItems` for `attributes` into `slot`.
    ///
    /// No `xdg:schema` is added to the attributes, so items written by `secret-tool store` (which carry none) are
    /// found. Locked items are listed separately, never silently dropped and never prompted for.
    func sendSearch(_ attributes: [String: String], in batch: borrowing DBusBatch, slot: Int) {
        batch.call(
            slot, path: Self.servicePath, interface: Self.serviceInterface, method: "SearchItems",
            parameters: Variant.tuple([Variant.stringDictionary(attributes)]), replyType: "(aoao)")
    }

    /// The answer of ``sendSearch(_:in:slot:)``.
    func takeSearch(from batch: borrowing DBusBatch, slot: Int) throws -> Found {
        let found = try batch.take(slot, "searching for items") { reply in
            Found(unlocked: Variant.child(reply, 0, Variant.stringArray), locked: Variant.child(reply, 1, Variant.stringArray))
        }
        return found ?? Found(unlocked: [], locked: [])
    }

    /// Sends `GetAll` of the item at `path` into `slot`.
    func sendGetAll(_ path: String, in batch: borrowing DBusBatch, slot: Int) {
        batch.call(
            slot, path: path, interface: Self.propertiesInterface, method: "GetAll",
            parameters: Variant.getAllParameters(interface: Self.itemInterface), replyType: "(a{sv})")
    }

    /// The answer of ``sendGetAll(_:in:slot:)``; `nil` when the item was deleted since the search.
    func takeItem(_ path: String, from batch: borrowing DBusBatch, slot: Int) throws -> KeyringItem? {
        try batch.take(slot, "reading the properties of \(path)", skippingMissing: true) { Self.item(at: path, from: $0) }
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
