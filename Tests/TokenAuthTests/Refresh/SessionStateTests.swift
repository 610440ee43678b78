import Foundation
import Testing
@testable import TokenAuth

@Suite("SessionState, on plain values")
struct SessionStateTests {
    let old = Auth(accessToken: "a0", refreshToken: "r0")
    let new = Auth(accessToken: "a1", refreshToken: "r1")

    @Test("nothing is servable before the store was read, nor while a write is owed")
    func servable() {
        var state = SessionState()
        #expect(state.servable == nil)
        state.load(old)
        #expect(state.servable == old)
        state.stage(new)
        state.release(new)
        #expect(state.current == new)
        #expect(state.servable == nil)  // the store has not accepted it
        state.saved(new)
        #expect(state.servable == new)
    }

    @Test("a write is cleared only when the store accepted exactly the unsaved tokens")
    func savedExactly() {
        var state = SessionState()
        state.load(old)
        state.stage(new)
        state.saved(old)
        #expect(state.unsaved == new)
        state.saved(new)
        #expect(state.unsaved == nil)
    }

    @Test("sign-in and sign-out bump the generation, so an older refresh is no longer current")
    func generation() {
        var state = SessionState()
        state.load(old)
        let refreshStarted = state.generation
        state.signOut()
        #expect(!state.isCurrent(refreshStarted))
        #expect(state.current == nil && state.unsaved == nil && state.rejection?.code == .loginRequired)
        let beforeSignIn = state.generation
        state.signIn(new)
        #expect(!state.isCurrent(beforeSignIn))
        #expect(state.current == new && state.unsaved == new && state.rejection == nil)
    }

    @Test("a rejected refresh token is refused again until new credentials arrive")
    func rejection() {
        var state = SessionState()
        state.load(old)
        let rejection = AuthError.loginRequired("rejected")
        state.reject(refreshToken: "r0", because: rejection)
        #expect(state.knownRejection(of: "r0") == rejection)
        #expect(state.knownRejection(of: "r1") == nil)
        state.adopt(new)
        #expect(state.knownRejection(of: "r0") == nil)
        #expect(state.rejection == nil)
    }
}
