import CLibSecret

// Not in ChangeFanOut.swift: a file that imports CDBusBatch and names a GIO constant (G_DBUS_CALL_FLAGS_NONE) makes
// Swift take GIO's declarations from CDBusBatch's copy of the headers, and files that import only CLibSecret then
// no longer find them.
extension SecretServiceCalls {
    /// Makes the attribute cache watch this call's connection and waits until the bus applies its match rules: from
    /// then on, every signal of the Secret Service reaches the fan-out. At most one round trip, to the bus daemon.
    func watchChanges() throws {
        guard let connection = clibsecret_service_connection(service) else {
            throw KeyringError.serviceUnavailable("libsecret's service has no D-Bus connection")
        }
        _ = AttributeCache.generation(for: service)  // the first call sends the match rules, without waiting
        if AttributeCache.rulesConfirmed(on: connection) { return }
        // The bus answers a connection's calls in order, and the filter sees every reply before the caller does: once
        // this answer is here, so are the rules' — confirmed, or refused.
        let reply = try withGError("asking the session bus for its ID") { error in
            Variant.withType("(s)") { type in
                g_dbus_connection_call_sync(
                    connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", nil,
                    type, G_DBUS_CALL_FLAGS_NONE, -1, cancellable, error)
            }
        }
        if let reply { g_variant_unref(reply) }
        guard AttributeCache.rulesConfirmed(on: connection) else {
            throw KeyringError.signalsRefused()
        }
    }
}
