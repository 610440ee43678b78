import Foundation
@testable import Keyring
import KeyringTestSupport
import TestSupport
import Testing

/// A write waits for an earlier write to the same attributes, but no longer than its timeout and not after its
/// task is cancelled. The earlier write is played by the test, which holds the item's lock itself.
///
/// The time limit only matters when the lock is broken: each test then fails instead of hanging.
@Suite("Waiting for another write to the same item is bounded and cancellable", .needsSecretService, .timeLimit(.minutes(1)))
struct KeyringWriteLockTests {
    let keyring = TestKeyring.keyring

    @Test("a write queued longer than its timeout fails with timedOut; once the lock is free, the next write proceeds")
    func queuedWriteTimesOut() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        let key = Keyring.lockKey(attributes)
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let held = await HeldWriteLock(key)

            let impatient = Keyring(configuration: .init(timeout: .milliseconds(200), prompting: .never))
            let error = await #expect(throws: KeyringError.self) {
                try await impatient.store("impatient", label: "L", attributes: attributes)
            }
            #expect(error == .writeStillRunning(after: .milliseconds(200)), "\(String(describing: error))")
            #expect(Keyring.writes.queued(key) == 0)

            #expect(try await held.release() == .byTest, "the write timed out while the lock was still held")
            try await keyring.store("after", label: "L", attributes: attributes)
            #expect(try await keyring.items(matching: attributes).count == 1)
            #expect(try await keyring.lookup(attributes)?.secret == "after")
        }
    }

    @Test("a queued write whose task is cancelled leaves at once with CancellationError; the write behind it gets the lock")
    func queuedWriteIsCancelled() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        let key = Keyring.lockKey(attributes)
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let held = await HeldWriteLock(key)

            // Patient writes: only the cancellation may end their wait, however slow this machine is.
            let patient = TestKeyring.patientKeyring
            let cancelled = Task { try await patient.store("cancelled", label: "L", attributes: attributes) }
            try await waitUntilQueued(key, 1)
            let behind = Task { try await patient.store("behind", label: "L", attributes: attributes) }
            try await waitUntilQueued(key, 2)
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            #expect(Keyring.writes.queued(key) == 1, "the cancelled write left the queue; the one behind it still waits")

            #expect(try await held.release() == .byTest, "the cancelled write left while the lock was still held")
            _ = try await behind.value
            #expect(try await keyring.items(matching: attributes).count == 1)
            #expect(try await keyring.lookup(attributes)?.secret == "behind")
        }
    }

    @Test("a write whose task is already cancelled when it reaches a held lock fails with CancellationError and never queues")
    func alreadyCancelledWriteDoesNotQueue() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        let key = Keyring.lockKey(attributes)
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) { () async throws in
            let held = await HeldWriteLock(key)

            let write = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await keyring.store("cancelled", label: "L", attributes: attributes)
            }
            await #expect(throws: CancellationError.self) { try await write.value }
            #expect(Keyring.writes.queued(key) == 0)

            #expect(try await held.release() == .byTest, "the cancelled write left while the lock was still held")
            #expect(try await keyring.items(matching: attributes).isEmpty)
        }
    }

    /// Returns once `count` writes wait for `key`; fails the test, saying so, when they do not within 30 s.
    private func waitUntilQueued(_ key: String, _ count: Int) async throws {
        try await waitUntil("\(count) writes queued for the item's lock") { Keyring.writes.queued(key) >= count }
    }
}

/// Holds the write lock of a key, as a running write does, until ``release()``.
///
/// Lets go by itself after `safetyLimit`, so that a write which ignores its timeout or cancellation gets the lock
/// and its test fails on what it asserts instead of hanging; ``release()`` then says so.
private struct HeldWriteLock {
    enum Ending: Sendable { case byTest, bySafetyLimit }

    private let holder: Task<Ending, any Error>
    private let released: AsyncStream<Void>.Continuation

    init(_ key: String, safetyLimit: Duration = .seconds(30)) async {
        let (acquired, acquiredSignal) = AsyncStream<Void>.makeStream()
        let (releases, released) = AsyncStream<Void>.makeStream()
        holder = Task {
            defer { acquiredSignal.finish() }  // also when the lock is not acquired: `release()` then throws
            return try await Keyring.writes.withLock(key, timeout: .seconds(60)) {
                acquiredSignal.finish()
                return await withTaskGroup(of: Ending?.self) { group in
                    group.addTask {
                        for await _ in releases { return .byTest }
                        return nil
                    }
                    group.addTask {
                        try? await Task.sleep(for: safetyLimit)
                        return .bySafetyLimit
                    }
                    let first = await group.next() ?? nil
                    group.cancelAll()
                    return first ?? .bySafetyLimit
                }
            }
        }
        self.released = released
        for await _ in acquired {}
    }

    /// Lets go of the lock, and says whether it was still held until now.
    func release() async throws -> Ending {
        released.yield()
        released.finish()
        return try await holder.value
    }
}
