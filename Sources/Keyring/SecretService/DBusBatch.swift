import CLibSecret

/// Method calls to one D-Bus peer that go out together and are awaited together: their round trips overlap, so a
/// batch costs about one. Every D-Bus method call of ``Keyring`` is one of these, on libsecret's connection; libsecret
/// itself only opens the session and runs the calls that may show a prompt.
///
/// Replies are delivered on the batch's own `GMainContext`, which only ``wait()`` iterates: waiting never runs
/// anybody else's callbacks, and nothing else runs the batch's. A call is bounded by the cancellable (and GDBus's
/// default timeout).
///
/// Use: ``call(_:path:interface:method:parameters:replyType:)`` once per slot, ``wait()``, then
/// ``take(_:_:skippingMissing:_:)`` for each slot. `wait()` blocks its thread: only on a ``BlockingCall`` thread.
/// A batch belongs to the one thread that made it.
struct DBusBatch: ~Copyable {
    private let slots: Slots
    private let connection: OpaquePointer
    private let destination: String
    private let cancellable: UnsafeMutablePointer<GCancellable>?

    /// A batch of `size` slots for calls to `destination` (a bus name), bounded by `cancellable`.
    init(connection: OpaquePointer, destination: String, size: Int, cancellable: UnsafeMutablePointer<GCancellable>?) {
        g_object_ref(UnsafeMutableRawPointer(connection))
        self.connection = connection
        self.destination = destination
        self.cancellable = cancellable
        if let cancellable { g_object_ref(cancellable) }
        slots = Slots(size: size)
    }

    deinit {
        // The replies' callbacks point into `slots`: wait for every outstanding one first.
        slots.waitForAll()
        if let cancellable { g_object_unref(cancellable) }
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    /// Sends one method call into slot `index` without waiting. Consumes a floating `parameters`.
    /// `replyType` is a GVariant type string such as `(a{sv})`, or `nil` to accept any reply.
    ///
    /// An invalid object path, interface or method name or reply type sends nothing: the slot fails with
    /// `G_IO_ERROR_INVALID_ARGUMENT`. (GDBus returns without calling back on those, so ``wait()`` would wait for ever.)
    func call(
        _ index: Int, path: String, interface: String, method: String, parameters: OpaquePointer?, replyType: String?
    ) {
        precondition(slots.replies.indices.contains(index), "no slot \(index) in a batch of \(slots.replies.count)")
        let invalid: (what: String, value: String)? =
            g_variant_is_object_path(path) == 0 ? ("object path", path)
            : g_dbus_is_interface_name(interface) == 0 ? ("interface name", interface)
            : g_dbus_is_member_name(method) == 0 ? ("method name", method)
            : replyType.map { g_variant_type_string_is_valid($0) == 0 } == true ? ("reply type", replyType!)
            : nil
        if let invalid {
            slots.refuse(index, "“\(invalid.value)” is not a valid D-Bus \(invalid.what)")
            // A floating reference is sunk, then released.
            if let parameters { g_variant_unref(g_variant_ref_sink(parameters)) }
            return
        }
        slots.pending += 1
        let context = Unmanaged.passRetained(Slot(slots, index)).toOpaque()
        g_main_context_push_thread_default(slots.context)
        defer { g_main_context_pop_thread_default(slots.context) }
        let (connection, destination, cancellable) = (connection, destination, cancellable)
        func send(_ type: OpaquePointer?) {
            g_dbus_connection_call(
                connection, destination, path, interface, method, parameters, type, G_DBUS_CALL_FLAGS_NONE, -1,
                cancellable, { source, result, context in
                    let slot = Unmanaged<Slot>.fromOpaque(context!).takeRetainedValue()
                    slot.slots.finish(slot.index, source: source, result: result)
                }, context)
        }
        if let replyType { Variant.withType(replyType, send) } else { send(nil) }
    }

    /// Blocks until every call sent so far has its reply or error.
    func wait() {
        slots.waitForAll()
    }

    /// Reads the reply in slot `index` with `read` and releases it; `nil` for a slot that had no call. A failed
    /// call throws through ``withGError(_:_:)``; with `skippingMissing`, an object that no longer exists
    /// (deleted since it was found) gives `nil` instead. Only after ``wait()``.
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

    /// The slots' replies and errors, and the main context their callbacks run on. Only ever touched by the batch's
    /// thread: the callbacks run inside ``waitForAll()``, which that thread calls.
    private final class Slots {
        let context: OpaquePointer
        var replies: [OpaquePointer?]
        var errors: [UnsafeMutablePointer<GError>?]
        var pending = 0

        init(size: Int) {
            context = g_main_context_new()
            replies = Array(repeating: nil, count: size)
            errors = Array(repeating: nil, count: size)
        }

        deinit {
            for reply in replies { if let reply { g_variant_unref(reply) } }
            for error in errors { if let error { g_error_free(error) } }
            g_main_context_unref(context)
        }

        func waitForAll() {
            while pending > 0 { g_main_context_iteration(context, 1) }
        }

        func finish(_ index: Int, source: UnsafeMutablePointer<GObject>?, result: OpaquePointer?) {
            var error: UnsafeMutablePointer<GError>?
            replies[index] = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
            errors[index] = error
            pending -= 1
        }

        func refuse(_ index: Int, _ message: String) {
            if let old = errors[index] { g_error_free(old) }
            errors[index] = g_error_new_literal(g_io_error_quark(), Int32(G_IO_ERROR_INVALID_ARGUMENT.rawValue), message)
        }

        /// The reply in slot `index`, which the caller releases, or `nil` with `error` set; `nil` without an error
        /// for a slot that had no call.
        func take(_ index: Int, _ error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> OpaquePointer? {
            let reply = replies[index]
            replies[index] = nil
            if reply == nil, let failure = errors[index] {
                error.pointee = failure
                errors[index] = nil
            }
            return reply
        }
    }

    /// What a reply's callback needs: the slots and the index its reply goes to.
    private final class Slot {
        let slots: Slots
        let index: Int
        init(_ slots: Slots, _ index: Int) {
            self.slots = slots
            self.index = index
        }
    }
}
