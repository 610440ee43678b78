import CLibSecret
import Dispatch
@testable import Keyring
import KeyringTestSupport
import Synchronization
import Testing

/// The replies of ``DBusBatch``'s calls, taken by ``DBusReplies``' filter: a reply that comes after its batch gave up is
/// dropped, and nothing it was meant for is touched. The peer is a second connection of this process, whose calls the
/// test answers by hand, when it chooses.
@Suite("Replies of batched D-Bus calls", .needsSecretService)
struct DBusRepliesTests {
    @Test("a reply that comes after its batch was cancelled is dropped: the batch keeps its cancellation, the next its own reply")
    func lateReplyIsDropped() async throws {
        let outcome = try #require(await onThread { try lateReply() }, "the test's thread never finished")
        #expect(outcome.first.contains("cancelled"), "\(outcome.first)")
        #expect(outcome.second == "second")
        #expect(outcome.lateReplyArrived, "the late reply never reached this process: the test proved nothing")
    }

    @Test("an error reply becomes its registered GError, a reply of another type than expected an invalid argument")
    func errorsAndTypes() async throws {
        let outcome = try #require(await onThread { () throws -> [GLibError?] in
            let ours = try withGError("connecting") { g_bus_get_sync(G_BUS_TYPE_SESSION, nil, $0) }!
            defer { g_object_unref(UnsafeMutableRawPointer(ours)) }
            let batch = DBusBatch(connection: ours, destination: "org.freedesktop.DBus", size: 3, cancellable: nil)
            let path = "/org/freedesktop/DBus", interface = "org.freedesktop.DBus"
            batch.call(0, path: path, interface: interface, method: "GetId", parameters: nil, replyType: "(s)")
            batch.call(1, path: path, interface: interface, method: "GetId", parameters: nil, replyType: "(u)")
            batch.call(2, path: path, interface: interface, method: "NoSuchMethod", parameters: nil, replyType: nil)
            batch.wait()
            return (0..<3).map { index in
                do {
                    _ = try batch.take(index, "calling") { _ in () }
                    return nil
                } catch let failure as GLibFailure {
                    return failure.info.error
                } catch {
                    return GLibError(domain: "?", code: -1, message: "\(error)")
                }
            }
        }, "the test's thread never finished")
        #expect(outcome[0] == nil)
        #expect(outcome[1]?.domain == "g-io-error-quark")
        #expect(outcome[1]?.code == Int32(G_IO_ERROR_INVALID_ARGUMENT.rawValue))
        #expect(outcome[1]?.message.contains("expected “(u)”") == true, "\(String(describing: outcome[1]))")
        #expect(outcome[2]?.domain == "g-dbus-error-quark")
        #expect(outcome[2]?.code == Int32(G_DBUS_ERROR_UNKNOWN_METHOD.rawValue), "\(String(describing: outcome[2]))")
    }

    private struct LateReply: Sendable {
        let first: String
        let second: String
        let lateReplyArrived: Bool
    }

    /// Cancels a batch while its call is held by the peer, answers the call, then makes another call.
    private func lateReply() throws -> LateReply {
        let ours = try withGError("connecting") { g_bus_get_sync(G_BUS_TYPE_SESSION, nil, $0) }!
        defer { g_object_unref(UnsafeMutableRawPointer(ours)) }
        let peer = try Peer()
        let cancellable = g_cancellable_new()!
        defer { g_object_unref(cancellable) }

        let first = DBusBatch(connection: ours, destination: peer.name, size: 1, cancellable: cancellable)
        first.call(0, path: "/test", interface: "org.example.Test", method: "Hold", parameters: nil, replyType: "(s)")
        let held = try peer.nextCall()
        let late = Watcher(replySerial: g_dbus_message_get_serial(held))
        // Retained for good: a call of the filter may still be running when it is removed.
        let watcher = g_dbus_connection_add_filter(ours, Watcher.filter, Unmanaged.passRetained(late).toOpaque(), nil)
        defer { g_dbus_connection_remove_filter(ours, watcher) }
        g_cancellable_cancel(cancellable)
        first.wait()

        peer.reply(to: held, "late")
        let second = DBusBatch(connection: ours, destination: peer.name, size: 1, cancellable: nil)
        second.call(0, path: "/test", interface: "org.example.Test", method: "Echo", parameters: nil, replyType: "(s)")
        // The peer sends its replies in order, and the bus keeps it: the late one is read before this one.
        peer.reply(to: try peer.nextCall(), "second")
        second.wait()
        return LateReply(
            first: outcome(of: first), second: outcome(of: second), lateReplyArrived: late.seen.load(ordering: .relaxed))
    }

    private func outcome(of batch: borrowing DBusBatch) -> String {
        do {
            return try batch.take(0, "calling") { Variant.child($0, 0, Variant.stringValue) } ?? "no reply"
        } catch let failure as GLibFailure {
            return failure.info.error.description
        } catch {
            return "\(error)"
        }
    }

    /// `body` on a thread of its own: a wait that never ends makes the test fail after 20 s instead of hanging it.
    private func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async -> T? {
        await withCheckedContinuation { continuation in
            let finished = DispatchSemaphore(value: 0)
            let result = Mutex<T?>(nil)
            DispatchQueue.global().async {
                let value = try? body()
                result.withLock { $0 = value }
                finished.signal()
            }
            DispatchQueue.global().async {
                let done = finished.wait(timeout: .now() + 20) == .success
                continuation.resume(returning: done ? result.withLock { $0 } : nil)
            }
        }
    }
}

/// A second connection to the session bus that holds the method calls it receives until the test answers them.
///
/// `@unchecked Sendable` is safe: the connection pointer never changes and is only passed to GDBus's thread-safe calls;
/// the held calls are behind a mutex.
private final class Peer: @unchecked Sendable {
    private let connection: OpaquePointer
    private let calls = Mutex<[Handed<OpaquePointer>]>([])
    private let arrived = DispatchSemaphore(value: 0)
    let name: String

    init() throws {
        let address = try withGError("finding the session bus") { g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, $0) }!
        defer { g_free(address) }
        let flags = GDBusConnectionFlags(
            G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        connection = try withGError("connecting the peer") {
            g_dbus_connection_new_for_address_sync(address, flags, nil, nil, $0)
        }!
        g_dbus_connection_set_exit_on_close(connection, 0)
        name = String(cString: g_dbus_connection_get_unique_name(connection))
        _ = g_dbus_connection_add_filter(connection, { _, message, incoming, data in
            guard incoming != 0, let message, g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL
            else { return message }
            let peer = Unmanaged<Peer>.fromOpaque(data!).takeUnretainedValue()
            let held = Handed(message)  // keeps the filter's reference
            peer.calls.withLock { $0.append(held) }
            peer.arrived.signal()
            return nil
        }, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    // The filter's `self` is never released while the connection lives: closing it first stops the filter.
    deinit {
        g_dbus_connection_close_sync(connection, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(connection))
        for call in calls.withLock({ $0 }) { g_object_unref(UnsafeMutableRawPointer(call.pointer)) }
    }

    /// The next call the peer received, waiting for it at most 10 s.
    func nextCall() throws -> OpaquePointer {
        guard arrived.wait(timeout: .now() + 10) == .success else { throw PeerError.noCall }
        return calls.withLock { $0.removeFirst() }.pointer
    }

    /// Answers `call` with the string `text`, and releases it.
    func reply(to call: OpaquePointer, _ text: String) {
        defer { g_object_unref(UnsafeMutableRawPointer(call)) }
        let reply = g_dbus_message_new_method_reply(call)!
        defer { g_object_unref(UnsafeMutableRawPointer(reply)) }
        g_dbus_message_set_body(reply, Variant.tuple([Variant.string(text)]))
        _ = g_dbus_connection_send_message(connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, nil)
    }

    enum PeerError: Error { case noCall }
}

/// A filter that notes whether the reply to the call of serial `replySerial` came.
private final class Watcher: Sendable {
    let replySerial: UInt32
    let seen = Atomic(false)

    init(replySerial: UInt32) { self.replySerial = replySerial }

    static let filter: GDBusMessageFilterFunction = { _, message, incoming, data in
        if incoming != 0, let message, g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_METHOD_RETURN {
            let watcher = Unmanaged<Watcher>.fromOpaque(data!).takeUnretainedValue()
            if g_dbus_message_get_reply_serial(message) == watcher.replySerial { watcher.seen.store(true, ordering: .relaxed) }
        }
        return message
    }
}
