import Foundation
import Synchronization
import TestSupport
import Testing
import TokenAuth
import TokenAuthTesting

@Suite("FileRefreshLock: releases and failures")
struct FileRefreshLockTests {
    /// Made by the lock itself, in a directory of the test's own that goes with the test.
    let temporary: TemporaryDirectory
    var directory: URL { temporary.url.appendingPathComponent("locks") }

    init() throws { temporary = try TemporaryDirectory() }

    func lock(maximumWait: Duration = .seconds(30), clock: any Clock<Duration> = ContinuousClock()) -> FileRefreshLock {
        FileRefreshLock(service: "lock.example", account: "ada", directory: directory, maximumWait: maximumWait, clock: clock)
    }

    @Test("a release by another holder of the same lock is announced; the stream ends when its consumer stops")
    func releasesAreAnnounced() async throws {
        let watched = lock()
        let releases = watched.releases()
        let next = Task { await releases.first { _ in true } != nil }
        try await lock().withLock {}
        #expect(await next.value, "the release was announced")
    }

    @Test("a holder that keeps the lock past maximumWait: lockTimedOut, transient, the body never run")
    func timesOut() async throws {
        let holding = Gate(isOpen: false)
        let entered = Gate(isOpen: false)
        let holder = Task {
            try await lock().withLock {
                entered.open()
                try await holding.pass()
            }
        }
        try await entered.pass()
        let clock = ManualClock(advancingOnSleep: true)  // the waits between attempts take no real time
        let ran = Counter()
        let error = await #expect(throws: TokenAuthError.self) {
            try await lock(maximumWait: .seconds(1), clock: clock).withLock { ran.increment() }
        }
        #expect(error?.code == .lockTimedOut)
        #expect(error?.isTransient == true)
        #expect(error?.reason.contains("refresh-") == true, "the reason names the lock file")
        #expect(clock.now.offset >= .seconds(1), "it waited the whole maximumWait on its clock")
        #expect(ran.value == 0)
        holding.open()
        try await holder.value
        try await lock().withLock { ran.increment() }
        #expect(ran.value == 1, "once released, the lock is taken")
    }

    @Test("a lock directory that cannot exist: lockUnavailable, not transient, with a fix")
    func unavailable() async throws {
        try Data().write(to: directory)  // a file where the directory should be
        let error = await #expect(throws: TokenAuthError.self) { try await lock().withLock {} }
        #expect(error?.code == .lockUnavailable)
        #expect(error?.isTransient == false && error?.isLoginRequired == false)
        #expect(error?.fix.contains("writable") == true)
    }
}

/// Counts calls from any task.
private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
