import Synchronization
import TestSupport
import Testing
@testable import TokenAuth

@Suite("Abandoning work that does not notice cancellation")
struct AbandonOnCancellationTests {
    /// An operation that ignores cancellation and finishes only when the test opens its gate.
    final class Gate: Sendable {
        private let state = Mutex<(opened: Bool, waiters: [CheckedContinuation<Void, Never>], started: Int, sawCancellation: Bool)>(
            (false, [], 0, false))

        func pass() async {
            await withCheckedContinuation { continuation in
                let openAlready = state.withLock { state in
                    state.started += 1
                    if !state.opened { state.waiters.append(continuation) }
                    return state.opened
                }
                if openAlready { continuation.resume() }
            }
            let cancelled = Task.isCancelled
            state.withLock { $0.sawCancellation = $0.sawCancellation || cancelled }
        }

        func open() {
            let waiters = state.withLock { state in
                state.opened = true
                defer { state.waiters = [] }
                return state.waiters
            }
            waiters.forEach { $0.resume() }
        }

        var started: Int { state.withLock { $0.started } }
        var isOpen: Bool { state.withLock { $0.opened } }
        var sawCancellation: Bool { state.withLock { $0.sawCancellation } }
    }

    @Test("the caller's result is the operation's when nobody cancels")
    func passesResultThrough() async throws {
        let value = try await abandoningOnCancellation { 42 }
        #expect(value == 42)
        struct Failure: Error {}
        await #expect(throws: Failure.self) { try await abandoningOnCancellation { () async throws -> Int in throw Failure() } }
    }

    /// Counts calls of `onAbandon`.
    final class Abandonments: Sendable {
        private let count = Mutex(0)
        func record() { count.withLock { $0 += 1 } }
        var recorded: Int { count.withLock { $0 } }
    }

    @Test("a cancelled caller throws CancellationError while the operation is still stuck; onAbandon runs, and the operation is left uncancelled to finish")
    func abandonsStuckOperation() async throws {
        let gate = Gate()
        let abandonments = Abandonments()
        let finished = Gate()
        let caller = Task {
            try await abandoningOnCancellation(onAbandon: abandonments.record) { () async throws -> String in
                await gate.pass()
                finished.open()
                return "late"
            }
        }
        try await waitUntil("the operation to start") { gate.started > 0 }
        try #require(gate.started == 1)

        caller.cancel()
        let result = await caller.result
        // The gate is still shut: the caller did not wait for the operation.
        #expect(!gate.isOpen)
        #expect(throws: CancellationError.self) { try result.get() }
        try await waitUntil("the abandonment to be reported") { abandonments.recorded > 0 }
        #expect(abandonments.recorded == 1)

        gate.open()
        try await waitUntil("the abandoned operation to run to its end") { finished.isOpen }
        #expect(finished.isOpen, "the abandoned operation ran to its end")
        #expect(!gate.sawCancellation, "the abandoned operation was not cancelled (see abandoningOnCancellation)")
    }

    @Test("a caller cancelled before it starts throws CancellationError; the operation still runs, uncancelled")
    func cancelledBeforeStart() async throws {
        let gate = Gate()
        gate.open()
        let abandonments = Abandonments()
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await abandoningOnCancellation(onAbandon: abandonments.record) { () async throws -> String in
                await gate.pass()
                return "ran"
            }
        }
        await #expect(throws: CancellationError.self) { try await caller.value }
        try await waitUntil("the operation to start and its abandonment to be reported") {
            gate.started > 0 && abandonments.recorded > 0
        }
        #expect(gate.started == 1)
        #expect(!gate.sawCancellation)
        #expect(abandonments.recorded == 1)
    }
}
