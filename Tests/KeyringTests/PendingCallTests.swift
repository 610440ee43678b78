import CLibSecret
import Foundation
@testable import Keyring
import KeyringTestSupport
import Testing

/// Calls whose replies resume the task from GDBus's worker thread: bounded by their timeout and by cancellation,
/// on libsecret's own connection.
@Suite("Calls without a waiting thread", .needsSecretService, .timeLimit(.minutes(1)))
struct PendingCallTests {
    /// libsecret's connection, after a keyring call has made it.
    private func connection() async throws -> OpaquePointer {
        _ = try await TestKeyring.keyring.lookup(["service": TestKeyring.uniqueService(), "account": "nobody"])
        let service = try #require(ConnectedService.current)
        return try #require(clibsecret_service_connection(service.pointer))
    }

    /// A message and its connection, for a task of the test's. `@unchecked Sendable` is safe: the test keeps both
    /// alive until the task has ended, and neither is changed once sent.
    private struct Call: @unchecked Sendable {
        let message: OpaquePointer
        let connection: OpaquePointer
    }

    /// `Ping` of the bus itself, marked as wanting no reply: the bus sends none.
    private func unansweredPing() -> OpaquePointer {
        let message = g_dbus_message_new_method_call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Peer", "Ping")!
        g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
        return message
    }

    @Test("a call answers with its reply")
    func reply() async throws {
        let connection = try await connection()
        let message = g_dbus_message_new_method_call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        let reply = try await PendingCall.reply(to: message, on: connection, timeout: .seconds(10))
        defer { g_object_unref(UnsafeMutableRawPointer(reply.message)) }
        #expect(g_dbus_message_get_message_type(reply.message) == G_DBUS_MESSAGE_TYPE_METHOD_RETURN)
        #expect(g_dbus_message_get_reply_serial(reply.message) == g_dbus_message_get_serial(message))
    }

    @Test("a call that gets no answer ends with its timeout")
    func timeout() async throws {
        let connection = try await connection()
        let message = unansweredPing()
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        let error = await #expect(throws: KeyringError.self) {
            _ = try await PendingCall.reply(to: message, on: connection, timeout: .milliseconds(200))
        }
        #expect(error?.code == .timedOut)
    }

    @Test("a call that gets no answer ends when its task is cancelled, long before its timeout")
    func cancellation() async throws {
        let connection = try await connection()
        let message = unansweredPing()
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        let call = Call(message: message, connection: connection)
        let waiting = Task {
            try await PendingCall.reply(to: call.message, on: call.connection, timeout: .seconds(3600))
        }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
    }
}
