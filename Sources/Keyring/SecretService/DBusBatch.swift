import CLibSecret
import Dispatch

/// Method calls to one D-Bus peer that go out together and are awaited together: their round trips overlap, so a
/// batch costs about one. Every D-Bus method call of ``Keyring`` is one of these, on libsecret's connection; libsecret
/// itself only opens the session and runs the calls that may show a prompt.
///
/// Each call is sent with `g_dbus_connection_send_message`, and its reply taken by ``DBusReplies``' filter on GDBus's
/// worker thread: the waiter is woken once, when the last reply is in, and nothing iterates a main context. A call is
/// bounded by the cancellable (whose cancellation fails the calls still out at once), by the batch's timeout (GDBus's
/// default for a call, ``callTimeout``, unless the operation allows longer), and by its connection closing.
///
/// Use: ``call(_:path:interface:method:parameters:replyType:)`` once per slot, ``wait()`` (or ``whenDone(_:)``), then
/// ``take(_:_:skippingMissing:_:)`` for each slot. `wait()` blocks its thread: only on a ``BlockingCall`` thread. A
/// batch belongs to the one thread or task that made it; only its slots are touched by others.
struct DBusBatch: ~Copyable {
    /// What `g_dbus_connection_call` waits for a reply by default (its timeout `-1`).
    static let callTimeout = Duration.seconds(25)

    private let slots: Slots
    private let connection: OpaquePointer
    private let destination: String
    private let cancellable: UnsafeMutablePointer<GCancellable>?
    private let cancelHandler: gulong
    private let timer: Timeout

    /// A batch of `size` slots for calls to `destination` (a bus name), bounded by `cancellable` and by `timeout`,
    /// after which the calls still out fail with `G_IO_ERROR_TIMED_OUT`.
    init(
        connection: OpaquePointer, destination: String, size: Int, cancellable: UnsafeMutablePointer<GCancellable>?,
        timeout: Duration = callTimeout
    ) {
        g_object_ref(UnsafeMutableRawPointer(connection))
        self.connection = connection
        self.destination = destination
        self.cancellable = cancellable
        let slots = Slots(size: size)
        self.slots = slots
        timer = Timeout(after: timeout) {
            DBusReplies.abandon(slots, with: G_IO_ERROR_TIMED_OUT, "Timeout was reached")
        }
        if let cancellable {
            g_object_ref(cancellable)
            // Runs on the cancelling thread (or here, when already cancelled: nothing is out yet then).
            cancelHandler = g_cancellable_connect(
                cancellable,
                unsafeBitCast(Self.onCancel, to: GCallback.self),
                Unmanaged.passRetained(slots).toOpaque(),
                { data in Unmanaged<Slots>.fromOpaque(data!).release() })
        } else {
            cancelHandler = 0
        }
    }

    deinit {
        timer.cancel()
        if let cancellable {
            // Waits for a cancellation handler running on another thread (it only takes two short locks): after
            // this, none touches the slots.
            g_cancellable_disconnect(cancellable, cancelHandler)
            g_object_unref(cancellable)
        }
        // A reply still out (a batch given up on before its wait) is dropped when it comes.
        DBusReplies.abandon(slots, with: G_IO_ERROR_CANCELLED, "The batch was dropped")
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    private static let onCancel: @convention(c) (UnsafeMutablePointer<GCancellable>?, UnsafeMutableRawPointer?) -> Void = { _, data in
        let slots = Unmanaged<Slots>.fromOpaque(data!).takeUnretainedValue()
        DBusReplies.abandon(slots, with: G_IO_ERROR_CANCELLED, "Operation was cancelled")
    }

    /// Sends one method call into slot `index` without waiting. Consumes a floating `parameters`.
    /// `replyType` is a GVariant type string such as `(a{sv})`, or `nil` to accept any reply.
    ///
    /// An invalid object path, interface or method name or reply type sends nothing: the slot fails with
    /// `G_IO_ERROR_INVALID_ARGUMENT`. Never blocks: GDBus's worker thread writes the message.
    func call(
        _ index: Int, path: String, interface: String, method: String, parameters: OpaquePointer?, replyType: String?
    ) {
        precondition(slots.size > index && index >= 0, "no slot \(index) in a batch of \(slots.size)")
        let invalid: (what: String, value: String)? =
            g_variant_is_object_path(path) == 0 ? ("object path", path)
            : g_dbus_is_interface_name(interface) == 0 ? ("interface name", interface)
            : g_dbus_is_member_name(method) == 0 ? ("method name", method)
            : replyType.map { g_variant_type_string_is_valid($0) == 0 } == true ? ("reply type", replyType!)
            : nil
        if let invalid {
            slots.fail([index], code: G_IO_ERROR_INVALID_ARGUMENT, "“\(invalid.value)” is not a valid D-Bus \(invalid.what)")
            // A floating reference is sunk, then released.
            if let parameters { g_variant_unref(g_variant_ref_sink(parameters)) }
            return
        }
        let message = g_dbus_message_new_method_call(destination, path, interface, method)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        // Sinks a floating `parameters`.
        if let parameters { g_dbus_message_set_body(message, parameters) }
        slots.expect(index, replyType: replyType)
        if let refused = DBusReplies.send(message, on: connection, into: slots, index, cancellable: cancellable) {
            slots.fail([index], error: refused)
        }
    }

    /// Blocks until every call sent so far has its reply or error (or was given up by the cancellable or the
    /// timeout): one wake-up, whatever the number of calls.
    func wait() {
        let done = DispatchSemaphore(value: 0)
        whenDone { done.signal() }
        done.wait()
    }

    /// Runs `done` once every call sent so far has its reply or error: at once on this thread when they have, else
    /// on the thread that completes the batch (GDBus's worker, or the cancelling one). `done` must not block.
    func whenDone(_ done: @escaping @Sendable () -> Void) {
        slots.whenDone(done)
    }

    /// Reads the reply in slot `index` with `read` and releases it; `nil` for a slot that had no call. A failed
    /// call throws through ``withGError(_:_:)``; with `skippingMissing`, an object that no longer exists
    /// (deleted since it was found) gives `nil` instead. Only after ``wait()`` (or ``whenDone(_:)``'s call).
    func take<T>(
        _ index: Int, _ action: @autoclosure () -> String, skippingMissing: Bool = false, _ read: (OpaquePointer) throws -> T
    ) throws -> T? {
        let reply: OpaquePointer?
        do {
            reply = try withGError(action()) { slots.take(index, $0) }
        } catch let failure as GLibFailure where skippingMissing && failure.info.kind == .notFound {
            return nil
        }
        guard let reply else { return nil }
        defer { g_variant_unref(reply) }
        return try read(reply)
    }
}
