import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The calls of ``SandboxBackend``: libsecret's password API, which in a sandbox (Flatpak, Snap) keeps items in the
/// app's own encrypted file (`$XDG_DATA_HOME/keyrings/default.keyring`) with a key from the Secret portal, since the
/// sandbox cannot reach `org.freedesktop.secrets`. Every function blocks: call them from a blocking call's thread.
///
/// The file backend matches a search or a clear on a *subset* of an item's attributes, and a store replaces only the
/// item with exactly the attributes given (it adds no `xdg:schema`); this type keeps ``Keyring``'s rule on top of
/// that: reads, writes and deletes concern exactly the attributes given, never an item that carries more.
///
/// No call gets a `GCancellable`: cancelling one that waits for the portal deadlocks the cancelling thread with
/// libsecret 0.20.5 and ends nothing with 0.21.7. A call is bounded by abandoning its thread instead (see
/// `SandboxBackend.call`). Items have no schema there: the file backend stores exactly the attributes given.
enum FileBackendCalls {
    /// A hash of `attributes` (`xdg:schema` aside) as a path, `/app-keyring/HEX`: the identifier of the item with
    /// them in the app's keyring file, in the place of a D-Bus path. The file has no paths, and an item is the one
    /// with its attributes.
    static func hashedPath(of attributes: [String: String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) where key != KeyringItem.schemaAttribute {
            for byte in Array(key.utf8) + [0] + Array(value.utf8) + [0] {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
        }
        return "/app-keyring/" + String(hash, radix: 16)
    }

    /// Every item with all of `attributes`, with metadata, and `body`'s answer about them (the items' secrets can be
    /// read in it).
    private static func withSearch<T>(
        _ attributes: [String: String],
        _ body: ([(item: KeyringItem, retrievable: OpaquePointer)]) throws -> T
    ) throws -> T {
        let table = makeAttributeTable(withoutSchema(attributes))
        defer { g_hash_table_unref(table) }
        let list = try withGError("searching the app's keyring") {
            secret_password_searchv_sync(nil, table, SECRET_SEARCH_ALL, nil, $0)
        }
        defer { g_list_free_full(list, g_object_unref) }
        let found = elements(of: list).map { pointer in
            let retrievable = OpaquePointer(pointer)
            var attributes: [String: String] = [:]
            if let table = secret_retrievable_get_attributes(retrievable) {
                defer { g_hash_table_unref(table) }
                attributes = dictionary(from: table)
            }
            let item = KeyringItem(
                path: hashedPath(of: attributes), attributes: attributes,
                label: takeString(secret_retrievable_get_label(retrievable)) ?? "",
                created: Date(timeIntervalSince1970: TimeInterval(secret_retrievable_get_created(retrievable))),
                modified: Date(timeIntervalSince1970: TimeInterval(secret_retrievable_get_modified(retrievable))),
                isLocked: false)
            return (item, retrievable)
        }
        return try body(found)
    }

    static func search(_ attributes: [String: String]) throws -> [KeyringItem] {
        try withSearch(attributes) { found in found.map(\.item) }
    }

    /// The secret of the item with exactly `attributes` (the newest, should there be several), or `nil`.
    static func find(_ attributes: [String: String]) throws -> KeyringSecret? {
        try withSearch(attributes) { found in
            let exact = found.filter { $0.item.hasExactly(attributes) }
            guard let chosen = exact.max(by: { ($0.item.modified, $0.item.path) < ($1.item.modified, $1.item.path) }) else {
                return nil
            }
            let value = try withGError("reading the secret from the app's keyring") {
                secret_retrievable_retrieve_secret_sync(chosen.retrievable, nil, $0)
            }
            guard let value else { return nil }
            defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
            guard let text = secret_value_get_text(value) else { throw KeyringError.notText(chosen.item.path) }
            return KeyringSecret(path: chosen.item.path, attributes: chosen.item.attributes, secret: String(cString: text))
        }
    }

    /// `attributes` without `xdg:schema`, which the file backend neither adds nor needs: ``Keyring``'s exact match
    /// ignores it.
    private static func withoutSchema(_ attributes: [String: String]) -> [String: String] {
        attributes.filter { $0.key != KeyringItem.schemaAttribute }
    }

    /// How a store or a delete writes: its key fetch outside the keyring file's lock, its write under it, and only
    /// while its call is not abandoned; see `AppKeyringFile.write`.
    struct Writer {
        let timeout: Duration
        let call: SandboxCall

        func callAsFunction<T>(loading load: () throws -> Void, _ write: () throws -> T) throws -> T {
            try call.file.write(timeout: timeout, call: call, load: load, write)
        }
    }

    /// Stores `secret` in the item with exactly `attributes`, replacing its secret and label, or in a new one. A
    /// search first makes libsecret read the file (the first access after a dropped backend waits for the portal's
    /// key), outside the lock; the store and the search for the stored item run under it.
    static func store(
        _ secret: String, label: String, attributes: [String: String], writer: Writer
    ) throws -> KeyringItem {
        let table = makeAttributeTable(withoutSchema(attributes))
        defer { g_hash_table_unref(table) }
        return try writer(loading: { _ = try search(attributes) }) {
            _ = try withGError("storing in the app's keyring") {
                secret_password_storev_sync(nil, table, nil, label, secret, nil, $0)
            }
            let stored = try search(attributes).filter { $0.hasExactly(attributes) }
            guard let item = stored.max(by: { $0.modified < $1.modified }) else { throw KeyringError.appKeyringKeptNothing }
            return item
        }
    }

    /// Deletes the items with exactly `attributes`; returns how many. Refuses (deleting nothing) when an item with
    /// further attributes would go too: the file backend clears every item that has all the attributes given.
    ///
    /// The check for such items runs under the keyring file's lock, on libsecret's copy of the file as the file is
    /// (`AppKeyringFile.write` starts over when another process wrote since the copy was read), and the clear right
    /// after it, under the same lock: an item another writer of this package adds is either there for the check,
    /// which then refuses, or added after the clear. (Plain libsecret clients in the sandbox take no lock.)
    static func delete(_ attributes: [String: String], writer: Writer) throws -> Int {
        let table = makeAttributeTable(withoutSchema(attributes))
        defer { g_hash_table_unref(table) }
        return try writer(loading: { _ = try search(attributes) }) {
            let found = try search(attributes)
            let exact = found.filter { $0.hasExactly(attributes) }
            guard !exact.isEmpty else { return 0 }
            let others = found.count - exact.count
            guard others == 0 else { throw KeyringError.appKeyringDeleteWouldTakeOthers(others) }
            _ = try withGError("deleting from the app's keyring") {
                secret_password_clearv_sync(nil, table, nil, $0)
            }
            return exact.count
        }
    }
}
