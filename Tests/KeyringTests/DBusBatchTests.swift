import CLibSecret
import Dispatch
@testable import Keyring
import KeyringTestSupport
import Synchronization
import Testing

/// A batch (``DBusBatch``) answers every slot it was given, even a call GDBus refuses to send.
@Suite("Batched D-Bus calls", .needsSecretService)
struct DBusBatchTests {
    /// The outcome of each slot, read on a thread of its own: a batch that never answers makes the test fail after
    /// 10 s instead of hanging it (the thread is then lost; nothing can stop it).
    private func outcomes(of calls: [(path: String, interface: String, method: String)]) async -> [String]? {
        await withCheckedContinuation { continuation in
            let finished = DispatchSemaphore(value: 0)
            let results = ResultBox()
            DispatchQueue.global().async {
                let connection: OpaquePointer? = try? withGError("connecting") { g_bus_get_sync(G_BUS_TYPE_SESSION, nil, $0) }
                guard let connection else { results.set(["no session bus"]); finished.signal(); return }
                defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
                let batch = DBusBatch(connection: connection, destination: "org.freedesktop.DBus", size: calls.count, cancellable: nil)
                for (index, call) in calls.enumerated() {
                    batch.call(index, path: call.path, interface: call.interface, method: call.method, parameters: nil, replyType: nil)
                }
                batch.wait()
                results.set(calls.indices.map { index in
                    do {
                        return try batch.take(index, "calling") { _ in "answered" } ?? "no reply"
                    } catch let failure as GLibFailure {
                        return failure.info.error.description
                    } catch {
                        return "\(error)"
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
        #expect(results[0].contains("“not a path” is not a valid D-Bus object path"), "\(results[0])")
        #expect(results[1] == "answered")
        #expect(results[2].contains("“no interface” is not a valid D-Bus interface name"), "\(results[2])")
        #expect(results[3].contains("“Get.Id” is not a valid D-Bus method name"), "\(results[3])")
    }
}

/// The results, handed from the batch's thread to the waiting one.
private final class ResultBox: Sendable {
    private let value = Mutex<[String]?>(nil)
    func set(_ new: [String]) { value.withLock { $0 = new } }
    func get() -> [String]? { value.withLock { $0 } }
}
