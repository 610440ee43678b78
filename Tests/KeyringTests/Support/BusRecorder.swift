import CLibSecret
@testable import Keyring
import Synchronization

/// What this process sends on libsecret's connection, in the order GDBus's worker thread writes it (a message filter),
/// each call with the `DBusBatch` that sent it: enough to count the round trips of one operation, by counting, not
/// timing. Other tests' traffic passes the same connection; ``roundTrips(concerning:)`` keeps only the calls that
/// name one test's own item or attributes.
final class BusRecorder: Sendable {
    enum Event: Sendable {
        /// A method call sent: its member, object path and arguments as text, and the number of the `DBusBatch` that
        /// sent it (`nil`: a call of libsecret's own, a round trip by itself).
        case call(text: String, batch: Int?)
    }

    private let events = Mutex<[Event]>([])
    /// libsecret's connection and the filter on it. `@unchecked Sendable` is safe: only passed to GDBus's thread-safe
    /// `g_dbus_connection_remove_filter` and released once, in `stop()`.
    private struct Installed: @unchecked Sendable {
        let connection: OpaquePointer
        let filter: guint
    }
    private let installed = Mutex<Installed?>(nil)

    /// Starts recording on libsecret's shared connection to the Secret Service.
    func start() throws {
        var error: UnsafeMutablePointer<GError>?
        guard let service = secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, nil, &error) else {
            defer { g_error_free(error) }
            throw RecorderFailure(message: error.flatMap { String(cString: $0.pointee.message) } ?? "no service")
        }
        defer { g_object_unref(service) }
        guard let connection = clibsecret_service_connection(service) else {
            throw RecorderFailure(message: "libsecret's service has no connection")
        }
        g_object_ref(UnsafeMutableRawPointer(connection))
        let context = Unmanaged.passRetained(self).toOpaque()
        let filter = g_dbus_connection_add_filter(connection, { connection, message, incoming, context in
            let recorder = Unmanaged<BusRecorder>.fromOpaque(context!).takeUnretainedValue()
            recorder.record(message!, on: connection!, incoming: incoming != 0)
            return message
        }, context, { context in Unmanaged<BusRecorder>.fromOpaque(context!).release() })
        installed.withLock { $0 = Installed(connection: connection, filter: filter) }
    }

    /// Stops recording.
    func stop() {
        guard let current = installed.withLock({ $0.take() }) else { return }
        g_dbus_connection_remove_filter(current.connection, current.filter)
        g_object_unref(UnsafeMutableRawPointer(current.connection))
    }

    private func record(_ message: OpaquePointer, on connection: OpaquePointer, incoming: Bool) {
        guard !incoming, g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL else { return }
        var text = String(cString: g_dbus_message_get_member(message)) + " "
            + String(cString: g_dbus_message_get_path(message))
        if let body = g_dbus_message_get_body(message), let printed = g_variant_print(body, 0) {
            text += " " + String(cString: printed)
            g_free(printed)
        }
        // Before the message is written: a batch's call is still awaiting its reply.
        let batch = DBusReplies.batch(sentAs: g_dbus_message_get_serial(message), on: connection)
        events.withLock { $0.append(.call(text: text, batch: batch)) }
    }

    /// The calls whose text contains any of `names`, each with its round: the calls of one `DBusBatch` go out together
    /// and are awaited together, one round trip; any other call is one by itself.
    ///
    /// Counted by batch, not by when answers came: a batch's calls leave one after the other, and on a busy machine the
    /// first one's answer can arrive before the last has left, although nothing waited for it (a whole run once
    /// counted a hinted lookup's three calls as two round trips that way).
    func rounds(concerning names: [String]) -> [(round: Int, call: String)] {
        let recorded = events.withLock { $0 }
        var roundOfBatch: [Int: Int] = [:]
        var result: [(round: Int, call: String)] = []
        var round = 0
        for case .call(let text, let batch) in recorded where names.contains(where: { Self.text(text, names: $0) }) {
            if let batch, let known = roundOfBatch[batch] {
                result.append((known, text))
                continue
            }
            round += 1
            if let batch { roundOfBatch[batch] = round }
            result.append((round, text))
        }
        return result
    }

    /// Whether `text` names `name` whole: not as the start of a longer name (`…/login/3` is not in `…/login/30`).
    static func text(_ text: String, names name: String) -> Bool {
        var start = text.startIndex
        while let range = text.range(of: name, range: start..<text.endIndex) {
            guard range.upperBound < text.endIndex else { return true }
            let next = text[range.upperBound]
            if !(next.isLetter || next.isNumber || next == "_") { return true }
            start = text.index(after: range.lowerBound)
        }
        return false
    }

    /// How many round trips the calls concerning `names` took.
    func roundTrips(concerning names: [String]) -> Int {
        rounds(concerning: names).last?.round ?? 0
    }

    /// Forgets what was recorded so far.
    func reset() {
        events.withLock { $0.removeAll() }
    }

    struct RecorderFailure: Error {
        let message: String
    }
}
