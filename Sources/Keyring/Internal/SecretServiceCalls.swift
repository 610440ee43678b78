import CLibSecret
import Foundation

/// Thrown when an operation met locked items or collections; ``Keyring`` unlocks them (if its prompt policy
/// allows) and runs the operation again.
struct NeedsUnlock: Error {
    /// The operation's attributes: its locked exact items are to be unlocked.
    let attributes: [String: String]
    /// The collection the operation writes to, when that is locked too.
    var collection: KeyringCollection?
}

/// The libsecret calls of one blocking operation, sharing its `GCancellable`.
///
/// Only ever used on a ``BlockingCall`` thread, inside one call: it is neither stored nor sent anywhere.
struct SecretServiceCalls {
    let service: UnsafeMutablePointer<SecretService>
    let cancellable: UnsafeMutablePointer<GCancellable>

    /// Connects to the Secret Service (libsecret shares one connection per process) and runs `body`.
    /// Any failure to connect is "no Secret Service", except the cancellation of the call.
    static func with<T>(
        _ cancellable: UnsafeMutablePointer<GCancellable>,
        _ body: (SecretServiceCalls) throws -> T
    ) throws -> T {
        // Optional on purpose: libsecret returns NULL when it sets the error, and a non-optional result
        // would force-unwrap that NULL before `withGError` could throw (a crash when there is no session bus).
        let connected: UnsafeMutablePointer<SecretService>?
        do {
            connected = try withGError("connecting to the Secret Service") {
                secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, cancellable, $0)
            }
        } catch let failure as GLibFailure where !failure.info.isCancellation && failure.info.kind == .other {
            throw KeyringError.serviceUnavailable(failure.info.text)
        }
        guard let service = connected else { throw KeyringError.serviceUnavailable("libsecret returned no service") }
        defer { g_object_unref(service) }
        return try body(SecretServiceCalls(service: service, cancellable: cancellable))
    }

    // MARK: Items

    /// A found item: its libsecret proxy (valid until the search's list is freed) and its description.
    struct Found {
        let proxy: UnsafeMutablePointer<SecretItem>
        let item: KeyringItem
    }

    /// Searches every collection, locked ones included, for items having all of `attributes`, runs `body`
    /// on them and releases them.
    func search<T>(_ attributes: [String: String], _ body: ([Found]) throws -> T) throws -> T {
        let table = makeAttributeTable(attributes)
        defer { g_hash_table_unref(table) }
        // searchv with a NULL schema: no `xdg:schema` filter, so items written by `secret-tool store`
        // (which carry none) are found. SECRET_SEARCH_ALL without UNLOCK: locked items are listed, not
        // silently dropped and not prompted for.
        let list = try withGError("searching for items") {
            secret_password_searchv_sync(nil, table, SECRET_SEARCH_ALL, cancellable, $0)
        }
        defer { clibsecret_object_list_free(list) }
        let found = elements(of: list).compactMap { object -> Found? in
            guard let proxy = clibsecret_as_item(object) else { return nil }
            return Found(proxy: proxy, item: describe(proxy))
        }
        return try body(found)
    }

    func describe(_ proxy: UnsafeMutablePointer<SecretItem>) -> KeyringItem {
        let table = secret_item_get_attributes(proxy)
        defer { if let table { g_hash_table_unref(table) } }
        return KeyringItem(
            path: String(cString: clibsecret_object_path(proxy)),
            attributes: table.map(dictionary(from:)) ?? [:],
            label: takeString(secret_item_get_label(proxy)) ?? "",
            created: Date(timeIntervalSince1970: TimeInterval(secret_item_get_created(proxy))),
            modified: Date(timeIntervalSince1970: TimeInterval(secret_item_get_modified(proxy))),
            isLocked: secret_item_get_locked(proxy) != 0)
    }

    /// Reads the secret of an unlocked item as UTF-8 text; `nil` when the service gives none (a locked item).
    func readSecret(_ proxy: UnsafeMutablePointer<SecretItem>, path: String) throws -> String? {
        _ = try withGError("reading the secret of \(path)") {
            secret_item_load_secret_sync(proxy, cancellable, $0)
        }
        guard let value = secret_item_get_secret(proxy) else { return nil }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length = 0
        guard let bytes = secret_value_get(value, &length) else { return "" }
        let buffer = UnsafeRawBufferPointer(start: bytes, count: length)
        guard let text = String(validating: buffer, as: UTF8.self) else { throw KeyringError.notText(path) }
        return text
    }

    func setSecret(_ proxy: UnsafeMutablePointer<SecretItem>, to secret: String, path: String) throws {
        let value = textValue(secret)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        _ = try withGError("replacing the secret of \(path)") {
            secret_item_set_secret_sync(proxy, value, cancellable, $0)
        }
    }

    func setLabel(_ proxy: UnsafeMutablePointer<SecretItem>, to label: String, path: String) throws {
        _ = try withGError("relabelling \(path)") {
            secret_item_set_label_sync(proxy, label, cancellable, $0)
        }
    }

    /// A `text/plain` secret value holding all of `secret`'s UTF-8 bytes (NUL characters included).
    private func textValue(_ secret: String) -> OpaquePointer {
        var bytes = Array(secret.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: gchar.self) { chars in
                secret_value_new(chars.baseAddress, gssize(chars.count), "text/plain")
            }
        }
    }

    func delete(_ proxy: UnsafeMutablePointer<SecretItem>, path: String) throws {
        _ = try withGError("deleting \(path)") {
            secret_item_delete_sync(proxy, cancellable, $0)
        }
    }

    /// Creates a new item without replacing any other.
    ///
    /// Not `secret_password_storev_sync`: its ReplaceExisting flag makes gnome-keyring replace any item
    /// in the collection whose attributes *include* ours, so it would overwrite another tool's item that
    /// has one attribute more.
    func create(
        in collection: UnsafeMutablePointer<SecretCollection>,
        attributes: [String: String],
        label: String,
        secret: String
    ) throws -> KeyringItem {
        let table = makeAttributeTable(attributes)
        defer { g_hash_table_unref(table) }
        let value = textValue(secret)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        let proxy = try withGError("creating an item") {
            secret_item_create_sync(collection, nil, table, label, value, SECRET_ITEM_CREATE_NONE, cancellable, $0)
        }
        guard let proxy else { throw KeyringError.other("The Secret Service created no item.", nil) }
        defer { g_object_unref(proxy) }
        return describe(proxy)
    }

    // MARK: Collections

    /// The collection `collection` names, or `nil` when there is no such collection or alias.
    func withCollection<T>(
        _ collection: KeyringCollection,
        _ body: (UnsafeMutablePointer<SecretCollection>?) throws -> T
    ) throws -> T {
        switch collection {
        case .default, .session:
            let proxy = try withGError("finding the \(collection) collection") {
                secret_collection_for_alias_sync(service, "\(collection)", SECRET_COLLECTION_NONE, cancellable, $0)
            }
            defer { if let proxy { g_object_unref(proxy) } }
            return try body(proxy)
        case .path(let path):
            // Just this collection, by path. Listing collections instead (the only lookup by path in
            // libsecret's stable API) loads every item of every collection, and fails with "no such item"
            // whenever another client deletes one meanwhile.
            let proxy: UnsafeMutablePointer<SecretCollection>?
            do {
                proxy = try withGError("finding the collection \(path)") {
                    clibsecret_collection_for_path_sync(service, path, cancellable, $0)
                }
            } catch let failure as GLibFailure where failure.info.kind == .notFound {
                proxy = nil
            }
            defer { if let proxy { g_object_unref(proxy) } }
            return try body(proxy)
        }
    }

    // MARK: Locking

    /// Asks the service to unlock what `request` names, showing its prompt if it has one.
    /// Returns whether everything is unlocked afterwards.
    func unlock(_ request: NeedsUnlock) throws -> Bool {
        // The service unlocks proxies, so find the objects again: the locked exact items and the collection.
        var objects: [gpointer] = []
        return try search(request.attributes) { found in
            objects += found.filter { $0.item.isLocked && $0.item.hasExactly(request.attributes) }
                .map { UnsafeMutableRawPointer($0.proxy) }
            guard let target = request.collection else {
                return try objects.isEmpty || changeLock(objects, unlock: true) == objects.count
            }
            return try withCollection(target) { collection in
                if let collection, secret_collection_get_locked(collection) != 0 {
                    objects.append(UnsafeMutableRawPointer(collection))
                }
                return try objects.isEmpty || changeLock(objects, unlock: true) == objects.count
            }
        }
    }

    /// Locks a collection. Never prompts.
    func lock(_ collection: UnsafeMutablePointer<SecretCollection>) throws {
        _ = try changeLock([UnsafeMutableRawPointer(collection)], unlock: false)
    }

    private func changeLock(_ objects: [gpointer], unlock: Bool) throws -> Int {
        var list: UnsafeMutablePointer<GList>?
        defer { g_list_free(list) }
        for object in objects { list = g_list_append(list, object) }
        var changed: UnsafeMutablePointer<GList>?
        let count = try withGError(unlock ? "unlocking" : "locking") {
            unlock
                ? secret_service_unlock_sync(service, list, cancellable, &changed, $0)
                : secret_service_lock_sync(service, list, cancellable, &changed, $0)
        }
        clibsecret_object_list_free(changed)
        return Int(count)
    }
}
