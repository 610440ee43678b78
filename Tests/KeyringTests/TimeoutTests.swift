@testable import Keyring
import Synchronization
import Testing

/// The timers that bound every keyring call and every wait for the write lock. Real time, but short, and nothing
/// asserts how long anything took: each test waits for a timer to fire, and the time limit ends it if one never does.
@Suite("Timeout", .timeLimit(.minutes(1)))
struct TimeoutTests {
    /// Records the order in which timers fired and lets a test wait until a given one has.
    final class Firings: Sendable {
        private let state = Mutex<(fired: [String], waiting: [(String, CheckedContinuation<Void, Never>)])>(([], []))

        func fire(_ name: String) {
            let ready = state.withLock { state in
                state.fired.append(name)
                let ready = state.waiting.filter { $0.0 == name }.map(\.1)
                state.waiting.removeAll { $0.0 == name }
                return ready
            }
            for continuation in ready { continuation.resume() }
        }

        var fired: [String] { state.withLock { $0.fired } }

        func waitFor(_ name: String) async {
            await withCheckedContinuation { continuation in
                let already = state.withLock { state in
                    if state.fired.contains(name) { return true }
                    state.waiting.append((name, continuation))
                    return false
                }
                if already { continuation.resume() }
            }
        }
    }

    @Test("a timer runs its block once its time has passed")
    func fires() async {
        let firings = Firings()
        _ = Timeout(after: .milliseconds(10)) { firings.fire("a") }
        await firings.waitFor("a")
        #expect(firings.fired == ["a"])
    }

    @Test("a cancelled timer never runs its block: a later one fires, and the cancelled one has not")
    func cancelled() async {
        let firings = Firings()
        let cancelled = Timeout(after: .milliseconds(20)) { firings.fire("cancelled") }
        cancelled.cancel()
        _ = Timeout(after: .milliseconds(80)) { firings.fire("later") }
        await firings.waitFor("later")
        #expect(firings.fired == ["later"])
    }

    @Test("a timer started after a far later one still fires on time: the watchdog wakes up for it")
    func earlierDeadlineWakesTheWatchdog() async {
        let firings = Firings()
        let far = Timeout(after: .seconds(600)) { firings.fire("far") }
        defer { far.cancel() }
        // The watchdog now sleeps until the far deadline; only the new, earlier one can end this test in time.
        _ = Timeout(after: .milliseconds(10)) { firings.fire("near") }
        await firings.waitFor("near")
        #expect(firings.fired == ["near"])
    }

    @Test("timers fire in the order of their deadlines, not of their starting")
    func order() async {
        let firings = Firings()
        _ = Timeout(after: .milliseconds(90)) { firings.fire("third") }
        _ = Timeout(after: .milliseconds(10)) { firings.fire("first") }
        _ = Timeout(after: .milliseconds(50)) { firings.fire("second") }
        await firings.waitFor("third")
        #expect(firings.fired == ["first", "second", "third"])
    }
}
