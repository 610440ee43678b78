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

/// A collection's path and the metadata ``Keyring`` needs.
struct CollectionInfo {
    let path: String
    let label: String
    let isLocked: Bool
}

/// The libsecret and D-Bus calls of one blocking operation, sharing its `GCancellable`.
///
/// Items are addressed by D-Bus object path, not through libsecret's `SecretItem` proxies: a proxy costs a
/// `GetAll` round trip and a bus match rule of its own, and a search made one per found item. Calls whose
/// answers do not depend on each other go out together in one ``DBusBatch`` and cost one round trip.
///
/// Only ever used on a ``BlockingCall`` thread, inside one call: it is neither stored nor sent anywhere.
struct SecretServiceCalls {
    let service: UnsafeMutablePointer<SecretService>
    let cancellable: UnsafeMutablePointer<GCancellable>

    fileprivate static let itemInterface = "org.freedesktop.Secret.Item"
    private static let collectionInterface = "org.freedesktop.Secret.Collection"
    private static let serviceInterface = "org.freedesktop.Secret.Service"
    fileprivate static let propertiesInterface = "org.freedesktop.DBus.Properties"
    private static let servicePath = "/org/freedesktop/secrets"

    /// Connects to the Secret Service (libsecret shares one connection and session per process) and runs `body`.
    /// Any failure to connect is "no Secret Service", except the cancellation of the call.
    ///
    /// `session` counts the sessions tried: a session kwalletd5 cannot decode for, or forgets, is replaced, up to
    /// three sessions in all. One new session was not enough: both failures, one after the other, made one of 300
    /// `tokenctl show` runs fail in a full test run.
    static func with<T>(
        _ cancellable: UnsafeMutablePointer<GCancellable>,
        session: Int = 1,
        _ body: (SecretServiceCalls) throws -> T
    ) throws -> T {
        // Registers the Secret Service's D-Bus error names (IsLocked, NoSuchObject), so that replies to our own
        // D-Bus calls arrive as SECRET_ERROR codes like those of libsecret's calls.
        _ = secret_error_get_quark()
        // Optional on purpose: libsecret returns NULL when it sets the error, and a non-optional result
        // would force-unwrap that NULL before `withGError` could throw (a crash when there is no session bus).
        let connected: UnsafeMutablePointer<SecretService>?
        do {
            connected = try connectRetryingKeyExchange(cancellable)
        } catch let failure as GLibFailure where !failure.info.isCancellation && failure.info.kind == .other {
            throw KeyringError.connectionFailure(failure.info)
        }
        guard let service = connected else { throw KeyringError.serviceUnavailable("libsecret returned no service") }
        defer { g_object_unref(service) }
        ConnectedService.remember(service)
        do {
            return try body(SecretServiceCalls(service: service, cancellable: cancellable))
        } catch is UndecodableSecret where session < 3 {
            // The session's keys disagree (see UndecodableSecret): drop libsecret's shared service, so that the
            // next one opens a new session, and run `body` again. Only reads decode, so nothing was written.
            ConnectedService.forget()
            secret_service_disconnect()
            return try with(cancellable, session: session + 1, body)
        } catch let failure as GLibFailure where session < 3 && failure.info.message.contains("Can't find session") {
            // kwalletd5 sometimes forgets (or never registers) the session it has just opened for us; the call
            // that needed it was refused, so nothing was written. A new session.
            ConnectedService.forget()
            secret_service_disconnect()
            return try with(cancellable, session: session + 1, body)
        } catch let undecodable as UndecodableSecret where undecodable.decryptedToBinary {
            throw KeyringError.notText(undecodable.path)
        } catch let undecodable as UndecodableSecret {
            throw KeyringError.other("The Secret Service sent a secret for \(undecodable.path) that could not be decoded.", nil)
        }
    }

    /// A secret of this session that did not decrypt. With kwalletd5 (KF 5.103) about one session in 150 decrypted
    /// nothing in our tests, presumably because the two sides derived different keys in the Diffie-Hellman exchange;
    /// a new session fixes it. Decrypted with the wrong key, a secret now and then passes the padding check and comes
    /// out as bytes that are not UTF-8 (one `tokenctl show` of 300 in a full run): those are tried with a new session
    /// too, and only bytes that stay binary in every session are `notText`.
    struct UndecodableSecret: Error {
        let path: String
        /// Whether it decrypted, to bytes that are not UTF-8 text.
        var decryptedToBinary = false
    }

    /// `secret_service_get_sync` with a session, tried up to three times while KWallet rejects the key exchange.
    ///
    /// kwalletd5 (KF 5.103) now and then refuses libsecret's Diffie-Hellman public key ("Client public key size is
    /// invalid"; seen about once in 100 `secret-tool` runs), presumably when the key has a leading zero byte and is
    /// sent shorter than 128 bytes. Each try draws a new key; the connection itself is libsecret's cached one.
    private static func connectRetryingKeyExchange(_ cancellable: UnsafeMutablePointer<GCancellable>) throws -> UnsafeMutablePointer<SecretService>? {
        var attempt = 1
        while true {
            do {
                return try withGError("connecting to the Secret Service") {
                    secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, cancellable, $0)
                }
            } catch let failure as GLibFailure where attempt < 3 && failure.info.message.contains("public key size is invalid") {
                attempt += 1
            }
        }
    }

    // MARK: Searching

    /// Every item having all of `attributes`, locked ones included, with its metadata. Two round trips: the
    /// search, then every found item's properties together.
    func search(_ attributes: [String: String]) throws -> [KeyringItem] {
        let (unlocked, locked) = try searchPaths(attributes)
        let paths = unlocked + locked
        let batch = makeBatch(size: paths.count)
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
            let batch = calls.makeBatch(size: paths.count)
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

    /// Searches for items having all of `attributes` to read one of them: two round trips, the search, then
    /// the unlocked items' secrets together with the attributes of every found item that ``AttributeCache`` does
    /// not remember.
    ///
    /// The secrets are fetched before the caller knows which item it wants, to save a round trip; those of
    /// items it does not read are released undecoded. Only the attributes are read, not `GetAll`: gnome-keyring
    /// answers each further property about as slowly as the secret itself, which is why remembered attributes are
    /// not asked for again.
    func searchForReading<T>(_ attributes: [String: String], _ body: (Readable) throws -> T) throws -> T {
        // Before the search: a change announced after this point is not taken for part of an answer.
        let (generation, watching) = AttributeCache.generation(for: service)
        let (unlocked, locked) = try searchPaths(attributes)
        let paths = unlocked + locked
        let remembered = paths.map { watching ? AttributeCache.recall($0) : nil }
        let batch = makeBatch(size: paths.count + 1)
        for (index, path) in paths.enumerated() where remembered[index] == nil {
            batch.call(
                index, path: path, interface: Self.propertiesInterface, method: "Get",
                parameters: Variant.getParameters(interface: Self.itemInterface, property: "Attributes"), replyType: "(v)")
        }
        if !unlocked.isEmpty {
            let session = String(cString: secret_service_get_session_dbus_path(service))
            batch.call(
                paths.count, path: Self.servicePath, interface: Self.serviceInterface, method: "GetSecrets",
                parameters: Variant.tuple([Variant.objectPaths(unlocked), Variant.objectPath(session)]),
                replyType: "(a{o(oayays)})")
        }
        batch.wait()
        let candidates = try paths.enumerated().compactMap { index, path in
            if let known = remembered[index] {
                return Candidate(path: path, attributes: known, isLocked: index >= unlocked.count)
            }
            // `nil`: deleted since the search.
            return try batch.take(index, "reading the attributes of \(path)", skippingMissing: true) { reply in
                Candidate(
                    path: path,
                    attributes: Variant.boxedProperty(reply, type: "a{ss}") { value in
                        AttributeCache.remember(path, value, readAt: generation)
                        return Variant.stringMap(value)
                    } ?? [:],
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

    /// The paths of the items having all of `attributes`, unlocked and locked ones apart.
    private func searchPaths(_ attributes: [String: String]) throws -> (unlocked: [String], locked: [String]) {
        let table = makeAttributeTable(attributes)
        defer { g_hash_table_unref(table) }
        var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        // A NULL schema: no `xdg:schema` filter, so items written by `secret-tool store` (which carry none) are
        // found. Locked items are listed separately, never silently dropped and never prompted for.
        _ = try withGError("searching for items") {
            secret_service_search_for_dbus_paths_sync(service, nil, table, cancellable, &unlocked, &locked, $0)
        }
        defer {
            g_strfreev(unlocked)
            g_strfreev(locked)
        }
        return (Variant.strings(unlocked), Variant.strings(locked))
    }

    /// The item at `path` described by its `GetAll` reply `(a{sv})`.
    private static func item(at path: String, from reply: OpaquePointer) -> KeyringItem {
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

    // MARK: Secrets

    /// Reads the secret of the item at `path`; `nil` when it is locked.
    func readSecret(at path: String) throws -> String? {
        let value: OpaquePointer?
        do {
            value = try withGError("reading the secret of \(path)") {
                secret_service_get_secret_for_dbus_path_sync(service, path, cancellable, $0)
            }
        } catch let failure as GLibFailure where failure.info.kind == .locked {
            return nil
        }
        guard let value else { return nil }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        return try text(of: value, path: path)
    }

    /// Decodes a `(oayays)` secret of this session as UTF-8 text.
    fileprivate func decodeText(_ encoded: OpaquePointer, path: String) throws -> String {
        guard let value = secret_service_decode_dbus_secret(service, encoded) else {
            throw UndecodableSecret(path: path)
        }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        do {
            return try text(of: value, path: path)
        } catch let error as KeyringError where error.code == .notText {
            throw UndecodableSecret(path: path, decryptedToBinary: true)
        }
    }

    private func text(of value: OpaquePointer, path: String) throws -> String {
        var length = 0
        guard let bytes = secret_value_get(value, &length) else { return "" }
        let buffer = UnsafeRawBufferPointer(start: bytes, count: length)
        guard let text = String(validating: buffer, as: UTF8.self) else { throw KeyringError.notText(path) }
        return text
    }

    /// Replaces the secret of the item at `path` (and its label, when `label` is given), in one round trip.
    func replace(at path: String, secret: String, label: String?) throws {
        let value = textValue(secret)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        // NULL only without a session, which `with` always opens. Floating by contract; taking the reference
        // makes it ours either way, and the tuple adds its own.
        guard let floating = secret_service_encode_dbus_secret(service, value) else {
            throw KeyringError.other("The secret could not be encoded for the Secret Service session.", nil)
        }
        let encoded = g_variant_take_ref(floating)
        defer { g_variant_unref(encoded) }
        let batch = makeBatch(size: 2)
        batch.call(
            0, path: path, interface: Self.itemInterface, method: "SetSecret", parameters: Variant.tuple([encoded]),
            replyType: "()")
        if let label {
            let parameters = Variant.tuple([
                Variant.string(Self.itemInterface), Variant.string("Label"), g_variant_new_variant(Variant.string(label)),
            ])
            batch.call(1, path: path, interface: Self.propertiesInterface, method: "Set", parameters: parameters, replyType: "()")
        }
        batch.wait()
        _ = try batch.take(0, "replacing the secret of \(path)") { _ in }
        if label != nil { _ = try batch.take(1, "relabelling \(path)") { _ in } }
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
        let batch = makeBatch(size: 1)
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
            let resolved = try withGError("finding the \(collection) collection") {
                secret_service_read_alias_dbus_path_sync(service, "\(collection)", cancellable, $0)
            }
            guard let resolved = takeString(resolved) else { return nil }
            path = resolved
        case .path(let given):
            guard g_variant_is_object_path(given) != 0 else { throw KeyringError.notAnObjectPath(given) }
            path = given
        }
        let batch = makeBatch(size: 1)
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

    // MARK: Batches

    /// A batch of `size` calls to the Secret Service over libsecret's connection, bounded by this call's cancellable.
    fileprivate func makeBatch(size: Int) -> DBusBatch {
        DBusBatch(
            connection: clibsecret_service_connection(service), destination: String(cString: clibsecret_service_bus_name(service)),
            size: size, cancellable: cancellable)
    }
}
