import TestSupport
import Testing

/// The test support's bounded waits fail when what they wait for does not happen.
@Suite("Bounded waits")
struct BoundedWaitTests {
    @Test("a wait whose condition never holds throws WaitTimedOut, naming what it waited for")
    func waitThatRunsOut() async {
        let error = await #expect(throws: WaitTimedOut.self) {
            try await waitUntil("a condition that never holds", within: .milliseconds(20)) { false }
        }
        #expect(error?.what == "a condition that never holds")
    }

    @Test("a wait whose condition holds returns")
    func waitThatSucceeds() async throws {
        var looks = 0
        try await waitUntil("the third look") {
            looks += 1
            return looks == 3
        }
        #expect(looks == 3)
    }
}
