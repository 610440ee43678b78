import CLibSecret

/// Whether the Secret Service's bus name still has an owner, asked of the session bus itself.
///
/// D-Bus reports two different failures alike: `org.freedesktop.DBus.Error.NoReply` is the answer to a call that
/// timed out, and also to a call whose provider left the bus — exited or crashed — before answering (dbus-daemon:
/// "Message recipient disconnected from message bus without replying"). If nobody owns `org.freedesktop.secrets`
/// afterwards, the call failed because the provider is gone (``KeyringError/providerLeft(_:)``), not because it
/// was slow.
enum ProviderPresence {
    /// `true` only when the bus says nobody owns `org.freedesktop.secrets` now; `false` when somebody does, or the
    /// bus cannot be asked within a second.
    ///
    /// Blocks on one round trip to the bus daemon: call it from a blocking call's thread, never the cooperative pool.
    static func hasLeft() -> Bool {
        let connection: OpaquePointer? = try? withGError("connecting to the session bus") {
            g_bus_get_sync(G_BUS_TYPE_SESSION, nil, $0)
        }
        guard let connection else { return false }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        let reply: OpaquePointer?? = try? withGError("asking the bus whether the Secret Service is there") { error in
            Variant.withType("(b)") { type in
                g_dbus_connection_call_sync(
                    connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                    Variant.tuple([Variant.string("org.freedesktop.secrets")]), type, G_DBUS_CALL_FLAGS_NONE, 1000, nil,
                    error)
            }
        }
        guard let reply = reply ?? nil else { return false }
        defer { g_variant_unref(reply) }
        let owned = Variant.firstChild(reply)
        defer { g_variant_unref(owned) }
        return g_variant_get_boolean(owned) == 0
    }
}
