import CLibSecret

/// A collection's path and the metadata ``Keyring`` needs.
struct CollectionInfo {
    let path: String
    let label: String
    let isLocked: Bool
}

// Creating, deleting, locking and unlocking may each show a prompt, which libsecret knows how to run and wait for:
// those four are libsecret's calls, on the same connection. Everything else here is a ``DBusBatch``.
extension SecretServiceCalls {
    // MARK: Items

    func delete(at path: String) throws {
        _ = try withGError("deleting \(path)") {
            secret_service_delete_item_dbus_path_sync(service, path, cancellable, $0)
        }
    }

    /// Creates a new item without replacing any other, and describes it.
    ///
    /// Never with ReplaceExisting (what `secret_password_storev_sync` asks for): gnome-keyring then replaces any
    /// item in the collection whose attributes *include* ours, so it would overwrite another tool's item that
    /// has one attribute more.
    func create(inCollectionAt collection: String, attributes: [String: String], label: String, secret: String) throws -> KeyringItem {
        let table = makeAttributeTable(attributes)
        defer { g_hash_table_unref(table) }
        let properties = clibsecret_item_properties_new(label, table)
        defer { g_hash_table_unref(properties) }
        let value = textValue(secret)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        let created = try withGError("creating an item") {
            secret_service_create_item_dbus_path_sync(
                service, collection, properties, value, SECRET_ITEM_CREATE_NONE, cancellable, $0)
        }
        guard let path = takeString(created) else { throw KeyringError.other("The Secret Service created no item.", nil) }
        let batch = try makeBatch(size: 1)
        batch.call(
            0, path: path, interface: Self.propertiesInterface, method: "GetAll",
            parameters: Variant.getAllParameters(interface: Self.itemInterface), replyType: "(a{sv})")
        batch.wait()
        guard let item = try batch.take(0, "reading the properties of \(path)", { Self.item(at: path, from: $0) }) else {
            throw KeyringError.other("The Secret Service created no item.", nil)
        }
        return item
    }

    // MARK: Collections

    /// The collection `collection` names, or `nil` when there is no such collection or alias. Throws
    /// ``KeyringError/notAnObjectPath(_:)`` for a `.path` that is no D-Bus object path.
    func collection(_ collection: KeyringCollection) throws -> CollectionInfo? {
        let path: String
        switch collection {
        case .default, .session:
            // `/` is the service's "no such alias".
            let resolved = try callService(
                "ReadAlias", Variant.tuple([Variant.string("\(collection)")]), replyType: "(o)",
                "finding the \(collection) collection"
            ) { Variant.child($0, 0, Variant.stringValue) }
            guard let resolved, resolved != "/" else { return nil }
            path = resolved
        case .path(let given):
            guard g_variant_is_object_path(given) != 0 else { throw KeyringError.notAnObjectPath(given) }
            path = given
        }
        let batch = try makeBatch(size: 1)
        batch.call(
            0, path: path, interface: Self.propertiesInterface, method: "GetAll",
            parameters: Variant.getAllParameters(interface: Self.collectionInterface), replyType: "(a{sv})")
        batch.wait()
        return try batch.take(0, "finding the collection \(path)", skippingMissing: true) { reply in
            let properties = Variant.firstChild(reply)
            defer { g_variant_unref(properties) }
            return CollectionInfo(
                path: path,
                label: Variant.property(properties, "Label", type: "s", Variant.stringValue) ?? "",
                isLocked: Variant.property(properties, "Locked", type: "b") { g_variant_get_boolean($0) != 0 } ?? false)
        }
    }

    // MARK: Locking

    /// Asks the service to unlock what `request` names, showing its prompt if it has one.
    /// Returns whether everything is unlocked afterwards.
    func unlock(_ request: NeedsUnlock) throws -> Bool {
        var paths = try search(request.attributes).filter { $0.isLocked && $0.hasExactly(request.attributes) }.map(\.path)
        if let target = request.collection, let collection = try collection(target), collection.isLocked {
            paths.append(collection.path)
        }
        guard !paths.isEmpty else { return true }
        var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        defer { g_strfreev(unlocked) }
        let count = try withCStrings(paths) { vector in
            try withGError("unlocking") {
                secret_service_unlock_dbus_paths_sync(service, vector, cancellable, &unlocked, $0)
            }
        }
        return Int(count) == paths.count
    }

    /// Locks the collection at `path`. Never prompts.
    func lock(collectionAt path: String) throws {
        var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        defer { g_strfreev(locked) }
        _ = try withCStrings([path]) { vector in
            try withGError("locking \(path)") {
                secret_service_lock_dbus_paths_sync(service, vector, cancellable, &locked, $0)
            }
        }
    }
}
