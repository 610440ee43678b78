import CLibSecret
import Dispatch
import Foundation
@testable import Keyring
import KeyringTestSupport
import Synchronization
import Testing

/// A batch (``DBusBatch``) answers every slot it was given: even a call GDBus refuses to send, one the service never
/// answers, and one whose connection closes.
@Suite("Batched D-Bus calls", .needsSecretService)
struct DBusBatchTests {
    /// The outcome of each slot, read on a thread of its own: a batch that never answers makes the test fail after
    /// 10 s instead of hanging it (the thread is then lost; nothing can stop it).
    ///
    /// - Parameters:
    ///   - address: The bus, on a connection of the test's own; the session bus's shared connection by default.
    ///   - timeout: The batch's.
    private func outcomes(
        of calls: [(path: String, interface: String, method: String)], to destination: String = "org.freedesktop.DBus",
        onBusAt address: String? = nil, timeout: Duration = DBusBatch.callTimeout
    ) async -> [Outcome]? {
        await withCheckedContinuation { continuation in
            let finished = DispatchSemaphore(value: 0)
            let results = ResultBox()
            DispatchQueue.global().async {
                let connection: OpaquePointer? = try? withGError("connecting") { error in
                    guard let address else { return g_bus_get_sync(G_BUS_TYPE_SESSION, nil, error) }
                    let flags = GDBusConnectionFlags(
                        G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
                    return g_dbus_connection_new_for_address_sync(address, flags, nil, nil, error)
                }
                guard let connection else { results.set([.failed("no bus", .other)]); finished.signal(); return }
                defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
                let batch = DBusBatch(
                    connection: connection, destination: destination, size: calls.count, cancellable: nil, timeout: timeout)
                for (index, call) in calls.enumerated() {
                    batch.call(index, path: call.path, interface: call.interface, method: call.method, parameters: nil, replyType: nil)
                }
                batch.wait()
                results.set(calls.indices.map { index in
                    do {
                        return try batch.take(index, "calling") { _ in .answered } ?? .failed("no reply", .other)
                    } catch let failure as GLibFailure {
                        return .failed(failure.info.error.description, failure.info.kind)
                    } catch {
                        return .failed("\(error)", .other)
                    }
                })
                finished.signal()
            }
            DispatchQueue.global().async {
                let answered = finished.wait(timeout: .now() + 10) == .success
                continuation.resume(returning: answered ? results.get() : nil)
            }
        }
    }

    @Test("an invalid object path, interface or method fails its slot at once; the valid call beside it is answered")
    func invalidArgumentsFailTheirSlot() async throws {
        let results = try #require(await outcomes(of: [
            ("not a path", "org.freedesktop.DBus", "GetId"),
            ("/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId"),
            ("/org/freedesktop/DBus", "no interface", "GetId"),
            ("/org/freedesktop/DBus", "org.freedesktop.DBus", "Get.Id"),
        ]), "the batch never finished")
        #expect(results.count == 4)
        #expect(results[0].message.contains("“not a path” is not a valid D-Bus object path"), "\(results[0])")
        #expect(results[1] == .answered)
        #expect(results[2].message.contains("“no interface” is not a valid D-Bus interface name"), "\(results[2])")
        #expect(results[3].message.contains("“Get.Id” is not a valid D-Bus method name"), "\(results[3])")
    }

    static let search = (path: "/org/freedesktop/secrets", interface: "org.freedesktop.Secret.Service", method: "SearchItems")

    @Test("a call the service never answers fails at the batch's timeout as a D-Bus timeout, which Keyring reports as timed out")
    func unansweredCallTimesOut() async throws {
        try await HungSecretService.with { bus in
            let results = try #require(
                await outcomes(of: [Self.search], to: "org.freedesktop.secrets", onBusAt: bus.address, timeout: .milliseconds(300)),
                "the batch never finished")
            #expect(results == [.failed("g-io-error-quark/24: Timeout was reached", .dbusTimeout)])
        }
    }

    /// GDBus tells of a closed connection only in the main context it was made in, which nothing here iterates: the
    /// replies' filter must notice by itself, or the call waits for its timeout (here longer than the test's 10 s).
    @Test("a call whose connection closes (the bus gone) fails at once as a closed connection: no Secret Service")
    func closedConnectionFailsItsCalls() async throws {
        try await VanishingSecretService.with(leavingOn: "SearchItems", busToo: true) { bus in
            let results = try #require(
                await outcomes(of: [Self.search], to: "org.freedesktop.secrets", onBusAt: bus.address, timeout: .seconds(600)),
                "the batch never finished")
            #expect(results == [.failed("g-io-error-quark/18: The connection is closed", .noProvider)])
        }
    }
}

/// What became of one slot: its reply, or its error's description and kind.
private enum Outcome: Equatable, Sendable {
    case answered
    case failed(String, GErrorInfo.Kind)

    var message: String {
        if case .failed(let message, _) = self { message } else { "answered" }
    }
}

/// The results, handed from the batch's thread to the waiting one.
private final class ResultBox: Sendable {
    private let value = Mutex<[Outcome]?>(nil)
    func set(_ new: [Outcome]) { value.withLock { $0 = new } }
    func get() -> [Outcome]? { value.withLock { $0 } }
}
