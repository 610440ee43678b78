@testable import Keyring
import Testing

/// The life of one call to the sandbox's keyring (`SandboxCall`), without a sandbox: its turn, its write, its
/// abandonment at the timeout. Each test has a file of its own, whose calls take turns (a process has one).
@Suite("A sandbox call: taking turns, writing, being abandoned")
struct SandboxCallTests {
    let file = AppKeyringFile(path: "/nonexistent/app-keyring-of-this-test")

    @Test("a call abandoned while it reads gives its turn on at once, and can no longer begin to write")
    func abandonedWhileRunning() throws {
        let first = SandboxCall(to: file)
        #expect(first.waitForTurn(within: .seconds(5)))
        #expect(first.abandonUnlessWriting())
        #expect(file.abandonedCallsRunning == 1, "its thread is still inside libsecret")
        // The next call gets the turn although the first one's thread has not come back.
        let second = SandboxCall(to: file)
        #expect(second.waitForTurn(within: .seconds(5)))
        #expect(throws: KeyringError.self) { try first.throwIfAbandoned() }
        #expect(throws: KeyringError.self) { try first.beginWriting() }
        #expect(first.current == .abandoned(inLibsecret: true))
        first.end()  // its thread comes back
        #expect(file.abandonedCallsRunning == 0)
        #expect(first.current == .abandoned(inLibsecret: true))
        second.end()
        #expect(second.current == .ended)
    }

    @Test("a call that began to write is not abandoned: its caller waits for its result, and it then gives its turn back")
    func writingIsNotAbandoned() throws {
        let call = SandboxCall(to: file)
        #expect(call.waitForTurn(within: .seconds(5)))
        try call.beginWriting()
        #expect(!call.abandonUnlessWriting())
        #expect(call.current == .writing)
        call.end()
        #expect(!call.abandonUnlessWriting(), "an ended call is not abandoned either")
        let next = SandboxCall(to: file)
        #expect(next.waitForTurn(within: .seconds(5)), "the turn came back")
        next.end()
    }

    @Test("a call abandoned while it waits for its turn never starts, and the turn goes on")
    func abandonedWhileQueued() {
        let holder = SandboxCall(to: file)
        #expect(holder.waitForTurn(within: .seconds(5)))
        let queued = SandboxCall(to: file)
        #expect(queued.abandonUnlessWriting())
        #expect(file.abandonedCallsRunning == 0, "it never entered libsecret")
        holder.end()
        #expect(!queued.waitForTurn(within: .seconds(5)), "abandoned before its turn came")
        queued.end()
        let next = SandboxCall(to: file)
        #expect(next.waitForTurn(within: .seconds(5)), "the turn the abandoned call got went on")
        next.end()
    }
}
