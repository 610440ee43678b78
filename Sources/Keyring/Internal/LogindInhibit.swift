import CLibSecret

/// One call of systemd-logind's `org.freedesktop.login1.Manager.Inhibit`, on a connection of its own: the blocking
/// half of ``SleepInhibitor``.
struct LogindInhibit: Sendable {
    let what: String
    let who: String
    let why: String
    let mode: String
    /// The bus's address; `nil`: the system bus's, as GIO finds it (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard
    /// socket).
    let busAddress: String?

    /// Why no lock was taken, for the debug log.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects, asks logind for the lock and returns the descriptor it handed out: a duplicate that is
    /// close-on-exec (`g_unix_fd_list_get`), owned by the caller.
    ///
    /// Blocks on the connection and one round trip: call it from a blocking call's thread, never the cooperative
    /// pool. The connection is its own, not GIO's shared system-bus connection, whose `exit-on-close` would end the
    /// process if the system bus went away, and is closed before returning: the lock lives as long as the descriptor,
    /// not the connection.
    /// - Throws: ``Failure`` when the bus cannot be reached or logind does not give a lock; a `GLibFailure` of
    ///   cancellation when `cancellable` is cancelled (the timeout or the task).
    func call(timeout: Duration, cancellable: UnsafeMutablePointer<GCancellable>) throws -> Int32 {
        let connection = try connect(cancellable: cancellable)
        defer {
            g_dbus_connection_close_sync(connection, cancellable, nil)
            g_object_unref(UnsafeMutableRawPointer(connection))
        }
        var fdList: UnsafeMutablePointer<GUnixFDList>?
        let reply: OpaquePointer? = try failing("asking logind for a delay lock") { error in
            Variant.withType("(h)") { type in
                g_dbus_connection_call_with_unix_fd_list_sync(
                    connection, "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager",
                    "Inhibit", Variant.tuple([what, who, why, mode].map(Variant.string)), type, G_DBUS_CALL_FLAGS_NONE,
                    gint(clamping: timeout.clampedNanoseconds / 1_000_000), nil, &fdList, cancellable, error)
            }
        }
        defer { if let fdList { g_object_unref(fdList) } }
        guard let reply else { throw Failure(description: "logind's Inhibit gave no reply") }
        defer { g_variant_unref(reply) }
        let index = Variant.child(reply, 0) { g_variant_get_handle($0) }
        guard let fdList, index >= 0, index < g_unix_fd_list_get_length(fdList) else {
            throw Failure(description: "logind's Inhibit answered without a file descriptor")
        }
        return try failing("taking logind's file descriptor") { g_unix_fd_list_get(fdList, index, $0) }
    }

    /// A connection of its own to the bus at ``busAddress`` (or the system bus), authenticated and registered with
    /// the bus daemon (`Hello`).
    private func connect(cancellable: UnsafeMutablePointer<GCancellable>) throws -> OpaquePointer {
        let address: String
        if let busAddress {
            address = busAddress
        } else {
            let found = try failing("finding the system bus") {
                g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, cancellable, $0)
            }
            guard let found else { throw Failure(description: "GIO found no address of the system bus") }
            defer { g_free(found) }
            address = String(cString: found)
        }
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        let connection = try failing("connecting to the bus") {
            g_dbus_connection_new_for_address_sync(address, flags, nil, cancellable, $0)
        }
        guard let connection else { throw Failure(description: "GIO returned no connection to the bus") }
        return connection
    }

    /// ``withGError(_:_:)``, with a failure that is not a cancellation turned into a ``Failure`` that names
    /// `action` and GLib's error; a cancellation stays a `GLibFailure`, for ``BlockingCall`` to drop.
    private func failing<T>(
        _ action: String, _ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T
    ) throws -> T {
        do {
            return try withGError(action, body)
        } catch let failure as GLibFailure where !failure.info.isCancellation {
            throw Failure(description: "\(action) failed: \(failure.info.error)")
        }
    }
}
