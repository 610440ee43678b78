import CLibSecret
import Synchronization

extension DBusBatch {
    /// A batch's replies and errors, filled by ``DBusReplies``' filter (on GDBus's worker thread), by the
    /// cancellation or the timeout (on theirs), and read by the batch's owner; and whom to wake when the last call
    /// is answered.
    ///
    /// Each sent call is answered exactly once: whoever removes it from ``DBusReplies``' pending calls (the filter,
    /// or ``DBusReplies/abandon(_:with:_:)``) answers it, under that lock. A slot's reply is only read after the batch
    /// is done.
    final class Slots: Sendable {
        fileprivate struct State {
            /// The reply messages (`GDBusMessage`), one reference each.
            var messages: [Handed<OpaquePointer>?]
            var errors: [Handed<UnsafeMutablePointer<GError>>?]
            var replyTypes: [String?]
            /// The sent calls not answered yet, by slot.
            var outstanding: [Int: DBusReplies.Key] = [:]
            var done: (@Sendable () -> Void)?
        }

        let size: Int
        /// Which batch of the process this is, counting from 1: what tells, on the bus, the calls of one batch (one
        /// round trip) from those of the next (``DBusReplies/batch(sentAs:on:)``).
        let number: Int
        private let state: Mutex<State>
        private static let made = Atomic<Int>(0)

        init(size: Int) {
            self.size = size
            number = Self.made.add(1, ordering: .relaxed).newValue
            state = Mutex(State(
                messages: Array(repeating: nil, count: size), errors: Array(repeating: nil, count: size),
                replyTypes: Array(repeating: nil, count: size)))
        }

        deinit {
            state.withLock { state in
                for message in state.messages { if let message { g_object_unref(UnsafeMutableRawPointer(message.pointer)) } }
                for error in state.errors { if let error { g_error_free(error.pointer) } }
            }
        }

        /// Slot `index` is about to be sent a call whose reply must be of `replyType`.
        func expect(_ index: Int, replyType: String?) {
            state.withLock { $0.replyTypes[index] = replyType }
        }

        /// The call in slot `index` was sent, as `key`. Called under ``DBusReplies``' lock, before any reply can be
        /// taken for it.
        func record(_ key: DBusReplies.Key, _ index: Int) {
            state.withLock { $0.outstanding[index] = key }
        }

        /// The calls sent and not answered yet.
        func outstanding() -> [DBusReplies.Key] {
            state.withLock { Array($0.outstanding.values) }
        }

        /// Gives slot `index` its reply `message`, keeping the reference the caller passes.
        func deliver(_ index: Int, _ message: OpaquePointer) {
            let message = Handed(message)
            let done = state.withLock { state in
                state.messages[index] = message
                return state.answered(index)
            }
            done?()
        }

        /// Fails the slots at `indexes` with a new `G_IO_ERROR` of `code`.
        func fail(_ indexes: [Int], code: GIOErrorEnum, _ message: String) {
            for index in indexes {
                fail([index], error: g_error_new_literal(g_io_error_quark(), Int32(code.rawValue), message))
            }
        }

        /// Fails the slots at `indexes` with `error`, which this takes.
        func fail(_ indexes: [Int], error: UnsafeMutablePointer<GError>) {
            let error = Handed(error)
            let done = state.withLock { state in
                var done: (@Sendable () -> Void)?
                for index in indexes {
                    if let old = state.errors[index] { g_error_free(old.pointer) }
                    state.errors[index] = indexes.count == 1 ? error : Handed(g_error_copy(error.pointer))
                    done = state.answered(index) ?? done
                }
                return done
            }
            if indexes.count != 1 { g_error_free(error.pointer) }
            done?()
        }

        /// Runs `done` once no call is outstanding: now, or when the last one is answered.
        func whenDone(_ done: @escaping @Sendable () -> Void) {
            let now = state.withLock { state in
                if state.outstanding.isEmpty { return true }
                state.done = done
                return false
            }
            if now { done() }
        }

        /// The reply in slot `index` (a `GVariant` the caller releases), or `nil` with `error` set; `nil` without an
        /// error for a slot that had no call. An error reply becomes a `GError` as `g_dbus_connection_call` makes it,
        /// with the D-Bus error names registered (the Secret Service's, by `secret_error_get_quark`) mapped to their
        /// codes; a reply of another type than expected is `G_IO_ERROR_INVALID_ARGUMENT`, as there.
        func take(_ index: Int, _ error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> OpaquePointer? {
            let (held, heldFailure, replyType) = state.withLock { state in
                defer { (state.messages[index], state.errors[index]) = (nil, nil) }
                return (state.messages[index], state.errors[index], state.replyTypes[index])
            }
            let (message, failure) = (held?.pointer, heldFailure?.pointer)
            if let failure {
                error.pointee = failure
                if let message { g_object_unref(UnsafeMutableRawPointer(message)) }
                return nil
            }
            guard let message else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(message)) }
            if g_dbus_message_to_gerror(message, error) != 0 { return nil }
            let body = g_dbus_message_get_body(message).map { g_variant_ref($0)! } ?? g_variant_ref_sink(g_variant_new_tuple(nil, 0))!
            if let replyType, !Variant.isOfType(body, replyType) {
                let actual = String(cString: g_variant_get_type_string(body))
                g_variant_unref(body)
                error.pointee = g_error_new_literal(
                    g_io_error_quark(), Int32(G_IO_ERROR_INVALID_ARGUMENT.rawValue),
                    "Method returned type “\(actual)”, but expected “\(replyType)”")
                return nil
            }
            return body
        }
    }
}

extension DBusBatch.Slots.State {
    /// Slot `index`'s call is answered: the waiter to wake, when it was the last one.
    fileprivate mutating func answered(_ index: Int) -> (@Sendable () -> Void)? {
        outstanding[index] = nil
        guard outstanding.isEmpty, let waiter = done else { return nil }
        done = nil
        return waiter
    }
}

/// A reference (a `GDBusMessage`, a `GError`) handed from the thread that made it to the one that reads it.
///
/// `@unchecked Sendable` is safe: a handed reference is owned by one holder at a time — the thread that made it, then
/// the batch's slots (behind their lock), then the thread that takes it — and only its holder releases it or reads
/// through it. A reply message is also read, after the filter has passed it on, by GDBus's worker and any later
/// filters: GDBus locks every incoming message (makes it immutable) before the first filter runs
/// (`gdbusconnection.c`, `on_worker_message_received`), and references are counted atomically, so those reads race
/// with nothing.
struct Handed<Pointer>: @unchecked Sendable {
    let pointer: Pointer
    init(_ pointer: Pointer) { self.pointer = pointer }
}
