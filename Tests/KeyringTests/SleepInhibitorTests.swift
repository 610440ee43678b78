import Dispatch
import Keyring
import KeyringTestSupport
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Delay locks from a fake systemd-logind (python-dbusmock's logind template on a private system bus), and none,
/// without an error, where no logind answers.
///
/// What the fake holds is asked of it (`ListInhibitors`), never inferred from timing; a release is waited for with a
/// bounded wait. The time limit ends a test whose acquisition waited for its timeout of minutes: it must not.
@Suite("A delay lock on sleep and shutdown from logind, or none", .needsFakeLogind, .timeLimit(.minutes(1)))
struct SleepInhibitorTests {
    static let expected = FakeLogind.Inhibitor(
        what: "sleep:shutdown", who: "TokenKeyring tests", why: "Storing refreshed sign-in tokens", mode: "delay")

    static func inhibitor(_ logind: FakeLogind, timeout: Duration = .seconds(10)) -> SleepInhibitor {
        SleepInhibitor(who: expected.who, why: expected.why, busAddress: logind.busAddress, timeout: timeout)
    }

    @Test("a lock taken is one delay inhibitor of sleep:shutdown, with our who and why; released, logind drops it")
    func takesAndReleases() async throws {
        try await FakeLogind.with { logind in
            let lock = try #require(await Self.inhibitor(logind).acquire())
            #expect(lock.isHeld)
            #expect(try await logind.heldInhibitors() == [Self.expected])

            lock.release()
            #expect(!lock.isHeld)
            try await waitUntil("logind to drop the released lock") { try await logind.heldInhibitors().isEmpty }
        }
    }

    @Test("a lock no longer referenced is released")
    func releasedWhenDropped() async throws {
        try await FakeLogind.with { logind in
            var lock = await Self.inhibitor(logind).acquire()
            #expect(try await logind.heldInhibitors() == [Self.expected])
            #expect(lock?.isHeld == true)
            lock = nil
            try await waitUntil("logind to drop the lock nobody references") { try await logind.heldInhibitors().isEmpty }
        }
    }

    @Test("releasing twice releases once: another lock taken in between stays held")
    func releaseIsIdempotent() async throws {
        try await FakeLogind.with { logind in
            let inhibitor = Self.inhibitor(logind)
            let first = try #require(await inhibitor.acquire())
            first.release()
            try await waitUntil("logind to drop the first lock") { try await logind.heldInhibitors().isEmpty }
            // Its descriptor number is free now, and likely the second lock's: a second close would end that one.
            let second = try #require(await inhibitor.acquire())
            first.release()
            // logind's mock handles a closed descriptor before a later call, so one question sees a wrong close.
            #expect(try await logind.heldInhibitors() == [Self.expected])
            #expect(second.isHeld)
            second.release()
            try await waitUntil("logind to drop the second lock") { try await logind.heldInhibitors().isEmpty }
        }
    }

    @Test("a child process started while the lock is held does not keep it: the descriptor is close-on-exec")
    func childDoesNotInherit() async throws {
        try await FakeLogind.with { logind in
            let lock = try #require(await Self.inhibitor(logind).acquire())
            // A `cat` that runs until its standard input closes, spawned with nothing but that input arranged: it
            // inherits every descriptor of this process that is not close-on-exec.
            let child = try Child.spawnCat()
            try await cleaningUp({ await child.finish() }) {
                lock.release()
                try await waitUntil("logind to drop the lock while the child still runs") {
                    try await logind.heldInhibitors().isEmpty
                }
            }
        }
    }

    @Test("holding(_:) holds a lock while its body runs, and releases it when the body returns or throws")
    func holdingReleasesAfterTheBody() async throws {
        struct Failure: Error {}
        try await FakeLogind.with { logind in
            let inhibitor = Self.inhibitor(logind)
            let seen = try await inhibitor.holding { try await logind.heldInhibitors() }
            #expect(seen == [Self.expected])
            try await waitUntil("logind to drop the lock after the body returned") {
                try await logind.heldInhibitors().isEmpty
            }

            await #expect(throws: Failure.self) {
                try await inhibitor.holding {
                    #expect(try await logind.heldInhibitors() == [Self.expected])
                    throw Failure()
                }
            }
            try await waitUntil("logind to drop the lock after the body threw") {
                try await logind.heldInhibitors().isEmpty
            }
        }
    }

    @Test("no logind on the system bus: nil, at once, not after the timeout")
    func noLogind() async throws {
        try await FakeLogind.with(.withoutLogind) { logind in
            #expect(await Self.inhibitor(logind, timeout: .seconds(600)).acquire() == nil)
        }
    }

    @Test("a logind that refuses the lock: nil, at once, not after the timeout")
    func refusal() async throws {
        try await FakeLogind.with(.refusing) { logind in
            #expect(await Self.inhibitor(logind, timeout: .seconds(600)).acquire() == nil)
        }
    }

    @Test("no bus at the address: nil, at once, not after the timeout")
    func unreachableBus() async {
        let inhibitor = SleepInhibitor(
            who: "t", why: "t", busAddress: "unix:path=/nonexistent/tokenkeyring-no-bus", timeout: .seconds(600))
        #expect(await inhibitor.acquire() == nil)
    }

    @Test("a logind that never answers: nil once the timeout has passed")
    func hungLogind() async throws {
        try await FakeLogind.with(.hung) { logind in
            #expect(await Self.inhibitor(logind, timeout: .milliseconds(300)).acquire() == nil)
        }
    }
}

/// `/bin/cat`, spawned with `posix_spawn` and no file actions but its standard input: unlike Foundation's `Process`,
/// which may close the descriptors a child would inherit, it keeps every descriptor that is not close-on-exec.
private struct Child: Sendable {
    let pid: pid_t
    /// The write end of the child's standard input (close-on-exec: the child does not hold it itself).
    let input: Int32

    static func spawnCat() throws -> Child {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SpawnFailure(errno: errno) }
        defer { close(ends[0]) }
        // Neither end is the child's but through the dup2 below (which clears the flag on its copy).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/cat"), nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/cat", &actions, nil, argv, environ)
        guard spawned == 0 else {
            close(ends[1])
            throw SpawnFailure(errno: spawned)
        }
        return Child(pid: pid, input: ends[1])
    }

    /// Closes the child's input, on which it exits, and reaps it (on a thread of its own, not the cooperative pool).
    func finish() async {
        close(input)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                done.resume()
            }
        }
    }

    struct SpawnFailure: Error { let errno: Int32 }
}
