import CDBusBatch
import CLibSecret

/// Method calls to one D-Bus peer that go out together and are awaited together: their round trips overlap,
/// so a batch costs about one. Owns its C batch (`CDBusBatch`) and frees it when it goes away.
///
/// Use: ``call(_:path:interface:method:parameters:replyType:)`` once per slot, ``wait()``, then
/// ``take(_:_:skippingMissing:_:)`` for each slot. `wait()` blocks its thread: only on a ``BlockingCall`` thread.
struct DBusBatch: ~Copyable {
    private let batch: OpaquePointer

    /// A batch of `size` slots for calls to `destination` (a bus name), bounded by `cancellable`.
    init(connection: OpaquePointer, destination: String, size: Int, cancellable: UnsafeMutablePointer<GCancellable>?) {
        batch = tokenkeyring_batch_new(connection, destination, guint(size), cancellable)
    }

    deinit { tokenkeyring_batch_free(batch) }

    /// Sends one method call into slot `index` without waiting. Consumes a floating `parameters`.
    /// `replyType` is a GVariant type string such as `(a{sv})`, or `nil` to accept any reply.
    func call(
        _ index: Int, path: String, interface: String, method: String, parameters: OpaquePointer?, replyType: String?
    ) {
        tokenkeyring_batch_call(batch, guint(index), path, interface, method, parameters, replyType)
    }

    /// Blocks until every call sent so far has its reply or error.
    func wait() {
        tokenkeyring_batch_wait(batch)
    }

    /// Reads the reply in slot `index` with `read` and releases it; `nil` for a slot that had no call. A failed
    /// call throws through ``withGError(_:_:)``; with `skippingMissing`, an object that no longer exists
    /// (deleted since it was found) gives `nil` instead. Only after ``wait()``.
    func take<T>(
        _ index: Int, _ action: @autoclosure () -> String, skippingMissing: Bool = false, _ read: (OpaquePointer) throws -> T
    ) throws -> T? {
        let reply: OpaquePointer?
        do {
            reply = try withGError(action()) { tokenkeyring_batch_take(batch, guint(index), $0) }
        } catch let failure as GLibFailure where skippingMissing && failure.info.kind == .notFound {
            return nil
        }
        guard let reply else { return nil }
        defer { g_variant_unref(reply) }
        return try read(reply)
    }
}
