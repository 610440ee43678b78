import CLibSecret
import Synchronization

/// What this process sends to the Secret Service on libsecret's connection, and the answers, in the order GDBus's
/// worker thread sees them (a message filter): enough to count the round trips of one operation, by counting, not
/// timing. Other tests' traffic passes the same connection; ``roundTrips(concerning:)`` keeps only the calls that
/// name one test's own item or attributes.
final class BusRecorder: Sendable {
    enum Event: Sendable {
        /// A method call sent: its serial, and its member, object path and arguments as text.
        case call(serial: UInt32, text: String)
        /// An answer (a return or an error) received to the call with that serial.
        case answer(to: UInt32)
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
        let filter = g_dbus_connection_add_filter(connection, { _, message, incoming, context in
            let recorder = Unmanaged<BusRecorder>.fromOpaque(context!).takeUnretainedValue()
            recorder.record(message!, incoming: incoming != 0)
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

    private func record(_ message: OpaquePointer, incoming: Bool) {
        switch g_dbus_message_get_message_type(message) {
        case G_DBUS_MESSAGE_TYPE_METHOD_CALL where !incoming:
            var text = String(cString: g_dbus_message_get_member(message)) + " "
                + String(cString: g_dbus_message_get_path(message))
            if let body = g_dbus_message_get_body(message), let printed = g_variant_print(body, 0) {
                text += " " + String(cString: printed)
                g_free(printed)
            }
            let serial = g_dbus_message_get_serial(message)
            events.withLock { $0.append(.call(serial: serial, text: text)) }
        case G_DBUS_MESSAGE_TYPE_METHOD_RETURN where incoming, G_DBUS_MESSAGE_TYPE_ERROR where incoming:
            let serial = g_dbus_message_get_reply_serial(message)
            events.withLock { $0.append(.answer(to: serial)) }
        default:
            break
        }
    }

    /// The calls whose text contains any of `names`, each with its round: a call sent after an answer to an earlier
    /// such call arrived waited for it, and so begins a new round trip.
    func rounds(concerning names: [String]) -> [(round: Int, call: String)] {
        let recorded = events.withLock { $0 }
        var ours: Set<UInt32> = []
        var result: [(round: Int, call: String)] = []
        var round = 0
        var answeredSinceLastCall = true
        for event in recorded {
            switch event {
            case .call(let serial, let text) where names.contains { Self.text(text, names: $0) }:
                if answeredSinceLastCall { round += 1 }
                answeredSinceLastCall = false
                ours.insert(serial)
                result.append((round, text))
            case .answer(let serial) where ours.contains(serial):
                answeredSinceLastCall = true
            default:
                break
            }
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
