import CDBusBatch
import CLibSecret
import Synchronization

/// A lookup on gnome-keyring of an item this process has read before, answered without a thread of its own:
/// the search and `GetSecrets` go out as ``PendingCall``s, and the item's attributes come from the
/// ``AttributeCache``. It costs the calls `secret_password_lookup` makes, and the thread hand-offs of a blocking
/// call made on the caller's own thread.
///
/// It answers only the plain case: exactly one item has the attributes exactly, it is unlocked and remembered, and
/// its secret is text. Anything else — nothing found, a locked or unknown item, several candidates, an error or
/// no answer in time — gives `nil`, and the caller does the full lookup, with its unlocking, its "locked is not
/// absent" checks and its typed errors; only no answer within the call's timeout is ``KeyringError/Code/timedOut``
/// at once (gnome-keyring never holds a search or a secret for a prompt, so it is not answering at all).
///
/// Only gnome-keyring is asked this way: KeePassXC may hold a search until its unlock dialog is answered, which
/// only the full lookup knows how to tell, and kwalletd5's items are never remembered.
enum FastLookup {
    private static let servicePath = "/org/freedesktop/secrets"
    private static let serviceInterface = "org.freedesktop.Secret.Service"

    static func secret(_ attributes: [String: String], timeout: Duration) async throws -> KeyringSecret? {
        guard let service = ConnectedService.current, tokenkeyring_attribute_cache_owner_is("gnome-keyring-d") != 0,
              let connection = clibsecret_service_connection(service.pointer)
        else { return nil }
        // `connection` is borrowed from the service, and `service.pointer` is used after every `await`: keep the
        // service alive to the end, even if another thread forgets it meanwhile (Swift may otherwise release it
        // after its last use by name).
        defer { withExtendedLifetime(service) {} }
        let destination = String(cString: clibsecret_service_bus_name(service.pointer))

        guard AttributeCache.generation(for: service.pointer).watching else { return nil }
        guard let found = try await call(
            connection, destination, "SearchItems", Variant.tuple([Variant.stringDictionary(attributes)]), "(aoao)",
            timeout: timeout)
        else { return nil }
        let (unlocked, locked) = (paths(found, 0), paths(found, 1))
        g_variant_unref(found)
        var exact: [(path: String, attributes: [String: String])] = []
        for path in unlocked + locked {
            guard let remembered = AttributeCache.recall(path) else { return nil }
            if KeyringItem.attributes(remembered, matchExactly: attributes) { exact.append((path, remembered)) }
        }
        guard exact.count == 1, let chosen = exact.first, unlocked.contains(chosen.path) else { return nil }

        guard let sessionPath = secret_service_get_session_dbus_path(service.pointer) else { return nil }
        let session = String(cString: sessionPath)
        guard let answer = try await call(
            connection, destination, "GetSecrets",
            Variant.tuple([Variant.objectPaths([chosen.path]), Variant.objectPath(session)]), "(a{o(oayays)})",
            timeout: timeout)
        else { return nil }
        defer { g_variant_unref(answer) }
        let secrets = Variant.firstChild(answer)
        defer { g_variant_unref(secrets) }
        guard let encoded = Variant.lookup(secrets, chosen.path) else { return nil }
        defer { g_variant_unref(encoded) }
        guard let value = secret_service_decode_dbus_secret(service.pointer, encoded) else { return nil }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length = 0
        guard let bytes = secret_value_get(value, &length),
              let text = String(validating: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
        else { return nil }
        answered.withLock { counts in
            if counts.count >= 1024 { counts.removeAll() }
            counts[chosen.path, default: 0] += 1
        }
        return KeyringSecret(path: chosen.path, attributes: chosen.attributes, secret: text)
    }

    /// How many lookups of each item this path answered (for tests; forgotten after a thousand items).
    private static let answered = Mutex<[String: Int]>([:])

    static func answers(_ path: String) -> Int { answered.withLock { $0[path] ?? 0 } }

    /// The object paths of the `ao` at `index` of `tuple`.
    private static func paths(_ tuple: OpaquePointer, _ index: Int) -> [String] {
        let array: OpaquePointer = g_variant_get_child_value(tuple, gsize(index))
        defer { g_variant_unref(array) }
        return Variant.stringArray(array)
    }

    /// Calls `method` of the Secret Service and returns its reply's body (a new reference), or `nil` for an error
    /// reply, a body of another type, or a call that could not be sent.
    /// - Throws: ``KeyringError/Code/timedOut`` without an answer in time; `CancellationError`.
    private static func call(
        _ connection: OpaquePointer, _ destination: String, _ method: String, _ parameters: OpaquePointer,
        _ replyType: String, timeout: Duration
    ) async throws -> OpaquePointer? {
        let message = g_dbus_message_new_method_call(destination, servicePath, serviceInterface, method)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, parameters)
        let reply: PendingCall.Reply
        do {
            reply = try await PendingCall.reply(to: message, on: connection, timeout: timeout)
        } catch is PendingCall.Unanswered {
            return nil
        }
        defer { g_object_unref(UnsafeMutableRawPointer(reply.message)) }
        guard g_dbus_message_get_message_type(reply.message) == G_DBUS_MESSAGE_TYPE_METHOD_RETURN,
              let body = g_dbus_message_get_body(reply.message),
              Variant.isOfType(body, replyType)
        else { return nil }
        return g_variant_ref(body)
    }
}
