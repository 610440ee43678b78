@testable import Keyring
import Testing

/// The life of one call to the sandbox's keyring (`SandboxCall`), without a sandbox: its turn, its write, its
/// abandonment at the timeout. Serialized: the calls of a process share one turn.
@Suite("A sandbox call: taking turns, writing, being abandoned", .serialized)
struct SandboxCallTests {
    @Test("a call abandoned while it reads gives its turn on at once, and can no longer begin to write")
    func abandonedWhileRunning() throws {
        let first = SandboxCall()
        #expect(first.start(within: .seconds(5)))
        let running = SandboxCall.abandonedCallsRunning
        #expect(first.abandon())
        #expect(SandboxCall.abandonedCallsRunning == running + 1, "its thread is still inside libsecret")
        // The next call gets the turn although the first one's thread has not come back.
        let second = SandboxCall()
        #expect(second.start(within: .seconds(5)))
        #expect(throws: KeyringError.self) { try first.checkNotAbandoned() }
        #expect(throws: KeyringError.self) { try first.beginWriting() }
        #expect(first.current == .abandoned(inLibsecret: true))
        first.end()  // its thread comes back
        #expect(SandboxCall.abandonedCallsRunning == running)
        #expect(first.current == .abandoned(inLibsecret: true))
        second.end()
        #expect(second.current == .ended)
    }

    @Test("a call that began to write is not abandoned: its caller waits for its result, and it then gives its turn back")
    func writingIsNotAbandoned() throws {
        let call = SandboxCall()
        #expect(call.start(within: .seconds(5)))
        try call.beginWriting()
        #expect(!call.abandon())
        #expect(call.current == .writing)
        call.end()
        #expect(!call.abandon(), "an ended call is not abandoned either")
        let next = SandboxCall()
        #expect(next.start(within: .seconds(5)), "the turn came back")
        next.end()
    }

    @Test("a call abandoned while it waits for its turn never starts, and the turn goes on")
    func abandonedWhileQueued() {
        let holder = SandboxCall()
        #expect(holder.start(within: .seconds(5)))
        let queued = SandboxCall()
        let running = SandboxCall.abandonedCallsRunning
        #expect(queued.abandon())
        #expect(SandboxCall.abandonedCallsRunning == running, "it never entered libsecret")
        holder.end()
        #expect(!queued.start(within: .seconds(5)), "abandoned before its turn came")
        queued.end()
        let next = SandboxCall()
        #expect(next.start(within: .seconds(5)), "the turn the abandoned call got went on")
        next.end()
    }
}
