import Foundation
import Testing
@testable import TokenAuth

@Suite("SessionState, on plain values")
struct SessionStateTests {
    let old = Auth(accessToken: "a0", refreshToken: "r0")
    let new = Auth(accessToken: "a1", refreshToken: "r1")
    let elsewhere = Auth(accessToken: "a2", refreshToken: "r2")

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
        #expect(state.stored == new)
    }

    @Test("a refresh's write replaces the version it was made from; a sign-in's replaces whatever is stored")
    func pendingWrites() {
        var state = SessionState()
        state.load(old)
        state.stage(new)
        #expect(state.pendingWrite == .replacing(base: old, with: new))
        state.saved(old)
        #expect(state.pendingWrite == .replacing(base: old, with: new), "cleared only when exactly it was accepted")
        state.saved(new)
        #expect(state.pendingWrite == nil)
        state.signIn(elsewhere)
        #expect(state.pendingWrite == .signIn(elsewhere))

        var memoryOnly = SessionState()
        memoryOnly.load(nil)
        memoryOnly.stage(new)
        #expect(memoryOnly.pendingWrite == .replacing(base: nil, with: new), "nothing stored: the write creates")
    }

    @Test("sign-in and sign-out bump the generation, so an older refresh is no longer current")
    func generation() {
        var state = SessionState()
        state.load(old)
        let refreshStarted = state.generation
        state.signOut()
        #expect(!state.isCurrent(refreshStarted))
        #expect(state.current == nil && state.pendingWrite == nil && state.rejection?.isLoginRequired == true)
        #expect(state.stored == old, "still stored until the erase succeeds")
        state.erased()
        #expect(state.stored == nil)
        let beforeSignIn = state.generation
        state.signIn(new)
        #expect(!state.isCurrent(beforeSignIn))
        #expect(state.current == new && state.pendingWrite == .signIn(new) && state.rejection == nil)
    }

    @Test("catching up: another version is adopted, and wins over a refresh's unwritten tokens")
    func catchUpAdopts() {
        var state = SessionState()
        state.load(old)
        #expect(state.catchUp(with: Auth(accessToken: "a0", refreshToken: "r0", expiresAt: Date())) == .unchanged,
            "the same tokens with another expiry (a store keeps whole seconds) are the same version")
        state.stage(new)
        state.release(new)
        #expect(state.catchUp(with: elsewhere) == .adopted)
        #expect(state.current == elsewhere && state.stored == elsewhere && state.pendingWrite == nil)
        #expect(state.servable == elsewhere)
    }

    @Test("catching up: a sign-in waiting to be written stays the session")
    func catchUpKeepsSignIn() {
        var state = SessionState()
        state.load(old)
        state.signIn(new)
        #expect(state.catchUp(with: elsewhere) == .keptSignIn)
        #expect(state.current == new && state.pendingWrite == .signIn(new) && state.stored == elsewhere)
    }

    @Test("catching up: a removed entry signs out, an ended one ends the session with its reason")
    func catchUpEnds() {
        var removed = SessionState()
        removed.load(old)
        #expect(removed.catchUp(with: nil) == .signedOut)
        #expect(removed.current == nil && removed.rejection?.isLoginRequired == true)

        var ended = SessionState()
        ended.load(old)
        let entry = Auth(accessToken: "a0", endReason: "a refresh answered for another account")
        #expect(ended.catchUp(with: entry) == .ended)
        #expect(ended.current == nil && ended.stored == entry)
        #expect(ended.rejection?.code == .sessionEnded)
        #expect(ended.rejection?.reason == "Sign-in required: a refresh answered for another account.")
        #expect(ended.catchUp(with: entry) == .unchanged)

        var loadedEnded = SessionState()
        loadedEnded.load(entry)
        #expect(loadedEnded.current == nil && loadedEnded.rejection?.isLoginRequired == true)

        var neverStored = SessionState()
        neverStored.load(nil)
        #expect(neverStored.catchUp(with: nil) == .unchanged)
    }

    @Test("a pending identity check keeps the tokens off the fast path, when identity is checked")
    func pendingIdentity() {
        var pending = new
        pending.unverifiedIDToken = "id-token"
        var checked = SessionState(checksIdentity: true)
        checked.load(pending)
        #expect(checked.current == pending && checked.servable == nil)
        var unchecked = SessionState(checksIdentity: false)
        unchecked.load(pending)
        #expect(unchecked.servable == pending)
    }

    @Test("ending the session keeps the entry to write in place of the stored version, and serves nothing")
    func end() {
        var state = SessionState()
        state.load(old)
        let entry = Auth(accessToken: "a0", endReason: "ended")
        state.end(keeping: entry, because: TokenAuthError.sessionEnded("ended"))
        #expect(state.current == nil && state.servable == nil)
        #expect(state.pendingWrite == .replacing(base: old, with: entry))
    }

    @Test("a rejected refresh token is refused again until new credentials arrive")
    func rejection() {
        var state = SessionState()
        state.load(old)
        let rejection = TokenAuthError.invalidGrant
        state.reject(refreshToken: "r0", because: rejection)
        #expect(state.knownRejection(of: "r0") == rejection)
        #expect(state.knownRejection(of: "r1") == nil)
        #expect(state.catchUp(with: new) == .adopted)
        #expect(state.knownRejection(of: "r0") == nil)
        #expect(state.rejection == nil)
    }
}
