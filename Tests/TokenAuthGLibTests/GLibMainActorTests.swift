import CGLib
import Foundation
import HTTPTypes
import Synchronization
import TestSupport
import Testing
import TokenAuth
import TokenAuthGLib
import TokenAuthTesting

/// What jobs on the GLib main actor saw: the threads they ran on, in order.
@GLibMainActor
final class MainContextLog {
    static let shared = MainContextLog()
    var entries: [(label: String, thread: pthread_t)] = []

    func record(_ label: String) {
        entries.append((label, pthread_self()))
    }
}

/// Read from any thread: the entries are copied on the actor.
func logEntries() async -> [(label: String, thread: pthread_t)] {
    await MainContextLog.shared.entries
}

@GLibMainActor
func resetLog() {
    MainContextLog.shared.entries = []
}

/// Runs nonisolated async work: on Swift's global executor, not on GLib's thread.
func workOffTheLoop() async -> pthread_t {
    await Task.detached { pthread_self() }.value
}

/// These use the global-default main context, the one GTK iterates: one at a time.
@Suite("GLibMainActor on GLib's default main context", .serialized)
struct GLibMainActorTests {
    /// Iterates nothing: whether any source of the default context is ready, looked at from this thread.
    private func defaultContextHasReadySource() -> Bool {
        g_main_context_pending(nil) != 0
    }

    @Test("nothing isolated to the actor runs while nobody iterates the context; it runs on the loop's thread once one does")
    func nothingRunsUntilTheLoopRuns() async throws {
        let ran = Mutex<[pthread_t]>([])
        Task { @GLibMainActor in ran.withLock { $0.append(pthread_self()) } }
        // The job was handed to GLib (its source is ready) and did not run on the thread that handed it over, as
        // `g_main_context_invoke` would have run it on a thread that can acquire the unowned default context.
        try await waitUntil("the job's source to be attached to the default context") { defaultContextHasReadySource() }
        #expect(ran.withLock { $0.isEmpty })

        let loop = LoopThread()
        try await loop.start()
        try await waitUntil("the job to run once the loop runs") { !ran.withLock { $0.isEmpty } }
        #expect(ran.withLock { $0.count == 1 && pthread_equal($0[0], loop.thread!) != 0 })
        await loop.stop()
    }

    @Test("an await in a @GLibMainActor function returns on the loop's thread; the awaited work ran elsewhere")
    func awaitReturnsOnTheLoopThread() async throws {
        let loop = LoopThread()
        try await loop.start()
        await resetLog()

        let worker = await { @GLibMainActor () async -> pthread_t in
            MainContextLog.shared.record("before")
            let worker = await workOffTheLoop()
            MainContextLog.shared.record("after")
            return worker
        }()

        let entries = await logEntries()
        #expect(entries.map(\.label) == ["before", "after"])
        #expect(entries.allSatisfy { pthread_equal($0.thread, loop.thread!) != 0 })
        #expect(pthread_equal(worker, loop.thread!) == 0)
        await loop.stop()
    }

    @Test("tasks started on the actor run in the order they were started, one at a time, on the loop's thread")
    func tasksRunInOrder() async throws {
        let loop = LoopThread()
        try await loop.start()
        await resetLog()

        await { @GLibMainActor in
            for index in 0..<200 {
                Task { @GLibMainActor in MainContextLog.shared.record("\(index)") }
            }
        }()
        try await waitUntil("200 tasks to run") { await logEntries().count == 200 }

        let entries = await logEntries()
        #expect(entries.map(\.label) == (0..<200).map { "\($0)" })
        #expect(entries.allSatisfy { pthread_equal($0.thread, loop.thread!) != 0 })
        await loop.stop()
    }

    @Test("assumeIsolated enters the actor from a GLib callback on the loop's thread, as GTK's signal handlers do")
    func assumeIsolatedInAGLibCallback() async throws {
        let loop = LoopThread()
        try await loop.start()
        await resetLog()

        // A plain GLib idle callback: GLib calls it on the loop's thread, outside any Swift job.
        g_idle_add({ _ in
            GLibMainActor.assumeIsolated { MainContextLog.shared.record("callback") }
            return gboolean(G_SOURCE_REMOVE)
        }, nil)
        try await waitUntil("the GLib callback to run") { await logEntries().count == 1 }

        #expect(pthread_equal(await logEntries()[0].thread, loop.thread!) != 0)
        await loop.stop()
    }

    @Test("assumeIsolated off the loop's thread stops the program")
    func assumeIsolatedElsewhereTraps() async {
        await #expect(processExitsWith: .failure) {
            GLibMainActor.assumeIsolated { MainContextLog.shared.record("never") }
        }
    }

    @Test("the callback API delivers a @GLibMainActor completion on the loop's thread, and a cancellation too")
    func callbackAPIDeliversOnTheLoop() async throws {
        let loop = LoopThread()
        try await loop.start()
        await resetLog()
        let manager = AuthManager(
            store: InMemoryAuthStore(Auth(accessToken: "valid", expiresAt: Date.distantFuture)),
            refresher: ScriptedTokenEndpoint(wallClock: { Date() }))
        let client = AuthorizedClient(manager: manager, transport: CannedTransport(json: "{}"))
        let url = URL(string: "http://127.0.0.1:9/resource")!

        client.send(HTTPRequest(method: .get, url: url)) { @GLibMainActor result in
            MainContextLog.shared.record((try? result.get()).map { "\($0.0.status.code)" } ?? "failed")
        }
        try await waitUntil("the completion to run") { await logEntries().count == 1 }

        // Cancelled while the transport holds it: the completion still runs on the loop, never synchronously in
        // cancel().
        let gate = Gate(isOpen: false)
        let heldClient = AuthorizedClient(manager: manager, transport: HeldTransport(gate: gate))
        let held = await { @GLibMainActor () -> CallbackRequest in
            let request = heldClient.send(HTTPRequest(method: .get, url: url)) { @GLibMainActor result in
                MainContextLog.shared.record(result.error is CancellationError ? "cancelled" : "not cancelled")
            }
            request.cancel()
            MainContextLog.shared.record("after cancel()")
            return request
        }()
        try await waitUntil("the cancellation to be delivered") { await logEntries().count == 3 }

        let entries = await logEntries()
        #expect(held.isCancelled)
        #expect(entries.map(\.label) == ["200", "after cancel()", "cancelled"])
        gate.open()
        #expect(entries.allSatisfy { pthread_equal($0.thread, loop.thread!) != 0 })
        await loop.stop()
    }
}

/// Answers 200 once its gate opens; a cancelled request leaves the gate with `CancellationError`.
struct HeldTransport: HTTPTransport {
    let gate: Gate

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        try await gate.pass()
        return (HTTPResponse(status: .ok), Data())
    }
}

extension Result {
    fileprivate var error: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
