import CLibSecret
import Synchronization

/// Where the replies to ``DBusBatch``'s calls go: a GDBus message filter takes each one on GDBus's worker thread, as it
/// is read, and gives it to its batch, which wakes its waiter once, when its last reply is in.
///
/// `g_dbus_connection_call` delivers each reply to a main context that the waiting thread must iterate: the worker
/// wakes that thread once per reply, and it then wakes the task that waits for it. With one core busy each of those
/// hand-offs waits for the core. A filter delivers where the reply is read, so the only hand-off left is the one to
/// whoever waits for the whole batch.
///
/// Only replies to messages sent by ``send(_:on:into:_:cancellable:)`` are taken, by their reply serial, and passed
/// on all the same; every other message (libsecret's own calls' replies, the signals ``ServiceSignals`` reads) passes
/// untouched, and one that is no reply costs the filter a type check.
///
/// Lock order (GLib 2.74, `gdbusconnection.c`, `gdbusprivate.c`): a send holds ``state``'s lock while GDBus takes its
/// connection lock, then its worker's write lock (and the worker's main context, to schedule the write); the filter
/// runs on the worker thread with the worker's read lock held and none of those (`on_worker_message_received` copies
/// the filter list under the connection lock and calls the filters after releasing it), and takes ``state``'s lock.
/// The read lock is only ever taken on the worker thread, and nothing takes ``state``'s lock while holding a GDBus
/// lock but the filter, so the two orders cannot meet in a cycle. Batches' own locks are taken after ``state``'s,
/// never before.
///
/// A connection that closes (the bus daemon gone: a logout) fails its calls still awaiting a reply with
/// `G_IO_ERROR_CLOSED`, as GDBus fails its own: ``failCallsOfClosedConnections()`` looks while any call is out. GDBus
/// says so only through its `closed` signal, which it emits in the main context the connection was made in, and
/// nothing here iterates that one (a command-line tool iterates none): what it sets at once, from its worker thread, is
/// the flag `g_dbus_connection_is_closed` reads.
enum DBusReplies {
    /// A sent call: on which connection, with which serial.
    struct Key: Hashable, Sendable {
        let connection: UInt
        let serial: UInt32

        init(_ connection: OpaquePointer, _ serial: UInt32) {
            self.connection = UInt(bitPattern: connection)
            self.serial = serial
        }
    }

    /// The calls awaiting a reply, and the connections with the filter.
    private struct State {
        var pending: [Key: (slots: DBusBatch.Slots, index: Int)] = [:]
        var filtered: Set<UInt> = []
        /// Whether ``failCallsOfClosedConnections()`` is due: from the first call out until none is.
        var closingWatched = false
    }

    private static let state = Mutex(State())

    /// How often ``failCallsOfClosedConnections()`` looks while calls are out: a call on a connection that closed
    /// fails within this, not at its timeout.
    static let closingCheckInterval = Duration.milliseconds(200)

    /// Sends `message` (a method call) on `connection`; its reply or error goes to slot `index` of `slots`.
    /// - Returns: The error GDBus refused to send it with (a closed connection), or `G_IO_ERROR_CANCELLED` when
    ///   `cancellable` is already cancelled; `nil` once sent.
    static func send(
        _ message: OpaquePointer, on connection: OpaquePointer, into slots: DBusBatch.Slots, _ index: Int,
        cancellable: UnsafeMutablePointer<GCancellable>?
    ) -> UnsafeMutablePointer<GError>? {
        let (refused, watch) = state.withLock { state -> (Handed<UnsafeMutablePointer<GError>>?, Bool) in
            let id = Key(connection, 0).connection
            if !state.filtered.contains(id) {
                // Once per connection, kept for the process's life: libsecret's connection is the process's shared
                // session bus, which lasts as long as the process. The reference keeps the filter's connection alive.
                g_object_ref(UnsafeMutableRawPointer(connection))
                _ = g_dbus_connection_add_filter(connection, filter, nil, nil)
                state.filtered.insert(id)
            }
            // Checked under the lock that the cancellation handler (``abandon(_:with:)``) takes: either the call is
            // refused here, or it is recorded before the handler looks, which then fails it.
            var error: UnsafeMutablePointer<GError>?
            if g_cancellable_set_error_if_cancelled(cancellable, &error) != 0 { return (error.map(Handed.init), false) }
            var serial: guint32 = 0
            // Not blocking: GDBus serialises the message and queues it for its worker thread, which writes it. On a
            // connection that has closed, it refuses with `G_IO_ERROR_CLOSED`.
            guard g_dbus_connection_send_message(connection, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, &serial, &error) != 0
            else { return (error.map(Handed.init), false) }
            let key = Key(connection, serial)
            state.pending[key] = (slots, index)
            slots.record(key, index)
            defer { state.closingWatched = true }
            return (nil, !state.closingWatched)
        }
        if watch { watchClosing() }
        return refused?.pointer
    }

    private static func watchClosing() {
        _ = Timeout(after: closingCheckInterval) { failCallsOfClosedConnections() }
    }

    /// Fails the calls awaiting a reply on a connection that has closed, with `G_IO_ERROR_CLOSED`, and looks again
    /// after ``closingCheckInterval`` while calls are out. Runs on the watchdog thread of ``Timeout``.
    private static func failCallsOfClosedConnections() {
        let (failed, again) = state.withLock { state in
            var closed: [UInt: Bool] = [:]
            let keys = state.pending.keys.filter { key in
                // An atomic read of GDBus's flag, no lock. The connection is alive: the filter's reference keeps it.
                closed[key.connection] ?? {
                    let isClosed = g_dbus_connection_is_closed(OpaquePointer(bitPattern: key.connection)) != 0
                    closed[key.connection] = isClosed
                    return isClosed
                }()
            }
            let failed = keys.compactMap { state.pending.removeValue(forKey: $0) }
            state.closingWatched = !state.pending.isEmpty
            return (failed, state.closingWatched)
        }
        for call in failed { call.slots.fail([call.index], code: G_IO_ERROR_CLOSED, "The connection is closed") }
        if again { watchClosing() }
    }

    /// Forgets the calls of `slots` still awaiting a reply and fails their slots with a `G_IO_ERROR` of `code`: its
    /// cancellable was cancelled, its time ran out, or it is gone. A reply coming later is given to nobody, and GDBus
    /// drops it as a reply to nothing it sent.
    static func abandon(_ slots: DBusBatch.Slots, with code: GIOErrorEnum, _ message: String) {
        let indexes = state.withLock { state in
            slots.outstanding().compactMap { key in state.pending.removeValue(forKey: key)?.index }
        }
        slots.fail(indexes, code: code, message)
    }

    /// How many calls await a reply, in every batch of the process: for tests.
    static var pendingCount: Int { state.withLock { $0.pending.count } }

    /// The number of the batch (``DBusBatch/Slots/number``) that sent the call with `serial` on `connection`, while it
    /// awaits its reply; `nil` for a call sent otherwise (libsecret's own). For tests that count round trips on the bus
    /// (a message filter sees an outgoing call on GDBus's worker thread before it is written, so before its reply).
    static func batch(sentAs serial: UInt32, on connection: OpaquePointer) -> Int? {
        state.withLock { $0.pending[Key(connection, serial)]?.slots.number }
    }

    /// The filter: gives a reply (or error) to the call awaiting it, and passes every message on as it is.
    /// Runs on GDBus's worker thread and never blocks: one short lock, and the batch's.
    private static let filter: GDBusMessageFilterFunction = { connection, message, incoming, _ in
        guard incoming != 0, let connection, let message else { return message }
        let type = g_dbus_message_get_message_type(message)
        guard type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN || type == G_DBUS_MESSAGE_TYPE_ERROR else { return message }
        let key = Key(connection, g_dbus_message_get_reply_serial(message))
        let taken = state.withLock { state in state.pending.isEmpty ? nil : state.pending.removeValue(forKey: key) }
        guard let taken else { return message }
        // The slot keeps a reference of its own. The reply is passed on, not consumed: the filters after this one
        // (an app's, a test's recorder) see every reply as before, and GDBus drops it as a reply to no call of its
        // own (one lookup under its connection lock).
        g_object_ref(UnsafeMutableRawPointer(message))
        taken.slots.deliver(taken.index, message)
        return message
    }
}
