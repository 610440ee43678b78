import CLibSecret
import Synchronization

/// The Secret Service's signals on libsecret's connection, read by a GDBus message filter and handed to
/// ``ChangeFanOut`` as ``KeyringChange``s.
///
/// A filter, not `g_dbus_connection_signal_subscribe`: a subscription's callbacks run on a main context that somebody
/// must iterate, and nothing in this package runs a main loop. A filter runs on GDBus's worker thread for every
/// message of the connection, in the order the bus delivered them, and must never block: it reads the message and
/// gives the change to the fan-out, which only takes short locks. The bus sends another process's signals only to a
/// connection that asked for them with a match rule (`AddMatch`): ``watch(_:)`` installs the filter first, then adds
/// the rules, and returns once the bus has answered them.
///
/// Nothing is watched, and no message is sent, until the first ``Keyring/changes()``: a process that only reads and
/// writes items (`tokenctl`) pays for none of it.
enum ServiceSignals {
    /// Every signal of the Secret Service, and a new owner of its bus name.
    static let rules = [
        "type='signal',sender='org.freedesktop.secrets'",
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',"
            + "arg0='org.freedesktop.secrets'",
    ]

    /// The connection watched, with its filter, and whether the bus has accepted the rules on it.
    ///
    /// `@unchecked Sendable` is safe: the pointer is only compared, and passed to GDBus's thread-safe connection calls
    /// (`g_dbus_connection_remove_filter`); the reference it holds is released once, when it is replaced.
    private struct Watched: @unchecked Sendable {
        let connection: OpaquePointer
        let filter: guint
        var rulesConfirmed = false
    }

    private static let watched = Mutex<Watched?>(nil)

    /// Makes `calls`' connection deliver the Secret Service's signals to ``ChangeFanOut`` and waits until the bus has
    /// applied the match rules: from then on, every change the service announces is delivered. At most one round
    /// trip, to the bus daemon, the first time on a connection.
    /// - Throws: ``KeyringError/signalsRefused()`` when the bus refuses a rule.
    static func watch(_ calls: SecretServiceCalls) throws {
        let connection = try calls.connection
        let (replaced, isNew) = watched.withLock { watched -> (Watched?, Bool) in
            if let current = watched, current.connection == connection { return (nil, false) }
            let previous = watched
            g_object_ref(UnsafeMutableRawPointer(connection))
            watched = Watched(connection: connection, filter: g_dbus_connection_add_filter(connection, filter, nil, nil))
            return (previous, true)
        }
        if let replaced {
            // Changes made while no connection was watched went unseen. Outside the lock, as GDBus asks of filter
            // changes; a call of the old filter still running only reads messages and takes the fan-out's locks.
            ChangeFanOut.deliver(.anything)
            g_dbus_connection_remove_filter(replaced.connection, replaced.filter)
            g_object_unref(UnsafeMutableRawPointer(replaced.connection))
        }
        if !isNew, watched.withLock({ $0?.rulesConfirmed == true }) { return }
        // The filter is in place: every signal the rules let through from here on reaches it.
        let batch = DBusBatch(connection: connection, destination: "org.freedesktop.DBus", size: rules.count, cancellable: calls.cancellable,
            timeout: calls.replyTimeout)
        for (index, rule) in rules.enumerated() {
            batch.call(
                index, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", method: "AddMatch",
                parameters: Variant.tuple([Variant.string(rule)]), replyType: "()")
        }
        batch.wait()
        do {
            for index in rules.indices { _ = try batch.take(index, "asking the session bus for the service's signals") { _ in } }
        } catch let failure as GLibFailure where failure.info.kind == .other && !failure.info.isCancellation {
            // An error reply of the bus itself, such as `LimitsExceeded`.
            throw KeyringError.signalsRefused()
        }
        watched.withLock { watched in
            if watched?.connection == connection { watched?.rulesConfirmed = true }
        }
    }

    /// The message filter: gives the change a signal announces to the fan-out, and passes every message on as it is.
    private static let filter: GDBusMessageFilterFunction = { _, message, incoming, _ in
        if incoming != 0, let message, let change = change(announcedBy: message) {
            ChangeFanOut.deliver(change)
        }
        return message
    }

    /// The change `message` announces, if it is a signal of the Secret Service (or about its bus name).
    ///
    /// `PropertiesChanged` of an item, `ItemChanged`, `ItemCreated` and `ItemDeleted` name their item; a prompt's
    /// `Completed` and the properties of a collection change no item; any other signal of a Secret Service interface —
    /// `CollectionChanged` (a collection locked, unlocked or renamed: what could not be read may be readable now, and
    /// an empty collection says so with nothing else), a collection created or deleted — a malformed one, and a new
    /// owner of `org.freedesktop.secrets` may have changed anything.
    static func change(announcedBy message: OpaquePointer) -> KeyringChange? {
        guard g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_SIGNAL,
              let interface = g_dbus_message_get_interface(message).map({ String(cString: $0) }),
              let member = g_dbus_message_get_member(message).map({ String(cString: $0) })
        else { return nil }
        let body = g_dbus_message_get_body(message)
        switch (interface, member) {
        case ("org.freedesktop.DBus.Properties", _):
            // Other processes' signals reach us only through match rules: a foreign one just costs a reading.
            let path = g_dbus_message_get_path(message).map { String(cString: $0) }
            guard let body, Variant.isOfType(body, "(sa{sv}as)") else { return KeyringChange(.changed, itemPath: path) }
            let changed = Variant.child(body, 0, Variant.stringValue)
            return changed == SecretServiceCalls.itemInterface ? KeyringChange(.changed, itemPath: path) : nil
        case ("org.freedesktop.Secret.Collection", "ItemCreated"), ("org.freedesktop.Secret.Collection", "ItemChanged"),
            ("org.freedesktop.Secret.Collection", "ItemDeleted"):
            let kind: KeyringChange.Kind = member == "ItemCreated" ? .created : member == "ItemDeleted" ? .deleted : .changed
            guard let body, Variant.isOfType(body, "(o)") else { return .anything }
            // `/` is D-Bus's "no object": KeePassXC 2.7.4 sends `ItemCreated` before the new item has a path.
            let path = Variant.child(body, 0, Variant.stringValue)
            return KeyringChange(kind, itemPath: path == "/" ? nil : path)
        case ("org.freedesktop.DBus", "NameOwnerChanged"):
            // An app may watch other names: only the service's own counts (a malformed signal is taken to be it).
            guard let body, Variant.isOfType(body, "(sss)") else { return .anything }
            return Variant.child(body, 0, Variant.stringValue) == "org.freedesktop.secrets" ? .anything : nil
        case ("org.freedesktop.Secret.Prompt", _):
            return nil
        default:
            return interface.hasPrefix("org.freedesktop.Secret.") ? .anything : nil
        }
    }
}
