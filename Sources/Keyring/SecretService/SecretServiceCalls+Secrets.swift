import CLibSecret

extension SecretServiceCalls {
    /// `(aoo)`: the parameters of `GetSecrets` for the items at `paths`, in this call's session.
    func getSecretsParameters(_ paths: [String]) -> OpaquePointer {
        let session = String(cString: secret_service_get_session_dbus_path(service))
        return Variant.tuple([Variant.objectPaths(paths), Variant.objectPath(session)])
    }

    /// Reads the secret of the item at `path`, alone; `nil` when it is locked.
    func readSecret(at path: String) throws -> String? {
        let secrets: OpaquePointer??
        do {
            secrets = try callService(
                "GetSecrets", getSecretsParameters([path]), replyType: "(a{o(oayays)})", "reading the secret of \(path)",
                Variant.firstChild)
        } catch let failure as GLibFailure where failure.info.kind == .locked {
            return nil
        }
        // The service leaves out a secret it will not give: that of a locked item.
        guard let secrets = secrets ?? nil else { return nil }
        defer { g_variant_unref(secrets) }
        guard let encoded = Variant.lookup(secrets, path) else { return nil }
        defer { g_variant_unref(encoded) }
        return try decodeText(encoded, path: path)
    }

    /// Decodes a `(oayays)` secret of this session as UTF-8 text.
    func decodeText(_ encoded: OpaquePointer, path: String) throws -> String {
        guard let value = secret_service_decode_dbus_secret(service, encoded) else {
            throw UndecodableSecret(path: path)
        }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length = 0
        guard let bytes = secret_value_get(value, &length) else { return "" }
        guard let text = String(validating: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self) else {
            throw UndecodableSecret(path: path, decryptedToBinary: true)
        }
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
        let batch = try makeBatch(size: 2)
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
    func textValue(_ secret: String) -> OpaquePointer {
        var bytes = Array(secret.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: gchar.self) { chars in
                secret_value_new(chars.baseAddress, gssize(chars.count), "text/plain")
            }
        }
    }
}
