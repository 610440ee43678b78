import Foundation
import Testing
@testable import TokenAuth

/// ``SessionState``'s store and caller events — the first read, later reads, sign-in, sign-out, writes — in each
/// state, on plain values.
@Suite("SessionState: the store's and the caller's events")
struct SessionStateTests {
    let old = Sessions.old, new = Sessions.new, elsewhere = Sessions.elsewhere

    @Test("the first read decides the state: signed in, no credentials, or ended; a marked version waits for recovery")
    func firstRead() {
        let unloaded = Sessions.unloaded()
        #expect(!unloaded.isLoaded && unloaded.current == nil && unloaded.servable == nil && unloaded.rejection == nil)

        let signedIn = Sessions.signedIn()
        #expect(signedIn.isLoaded && signedIn.current == old && signedIn.stored == old && signedIn.servable == old)
        #expect(signedIn.rejection == nil && signedIn.pendingWrite == nil && signedIn.generation == 0)

        let empty = Sessions.noCredentials()
        #expect(empty.isLoaded && empty.current == nil && empty.stored == nil && empty.rejection == nil)

        let ended = Sessions.endedElsewhere()
        #expect(ended.current == nil && ended.stored == Sessions.ended && ended.servable == nil)
        #expect(ended.rejection?.code == .sessionEnded)
        #expect(ended.rejection?.reason == "Sign-in required: a refresh answered for another account.")

        let marked = Sessions.signedIn(Sessions.marked(old))
        #expect(marked.needsRecovery && marked.current == Sessions.marked(old) && marked.servable == nil)
    }

    @Test("a first read that finishes after a sign-in or sign-out changes nothing")
    func lateFirstRead() {
        var signedIn = Sessions.unloaded()
        signedIn.signIn(new)
        signedIn.loaded(old)
        #expect(signedIn.current == new && signedIn.stored == nil && signedIn.pendingWrite == .signIn(new))

        var signedOut = Sessions.unloaded()
        signedOut.signOut()
        signedOut.loaded(old)
        #expect(signedOut.current == nil && signedOut.stored == nil && signedOut.rejection?.code == .signedOut)

        var loaded = Sessions.signedIn()
        loaded.loaded(elsewhere)
        #expect(loaded.current == old, "only the first read loads")
    }

    @Test("an event that needs the store read stops the program before it")
    func unloadedTraps() async {
        await #expect(processExitsWith: .failure) {
            var session = SessionState()
            _ = session.read(nil)
        }
        await #expect(processExitsWith: .failure) {
            var session = SessionState()
            session.written(Auth(accessToken: "a"))
        }
    }

    @Test("a read of the version the session knows changes nothing, in every state")
    func readUnchanged() {
        for (name, var session) in Sessions.loaded {
            let before = (session.current, session.stored, session.rejection)
            let change = session.read(session.stored.map(Sessions.reread))
            #expect(change == ReadAction.none, "\(name)")
            #expect(session.current == before.0 && session.stored == before.1 && session.rejection == before.2, "\(name)")
        }
    }

    @Test("a read of another version adopts it, in every state, and clears a refused refresh token")
    func readAdopts() {
        for (name, var session) in Sessions.loaded {
            if session.current != nil {
                session.refreshFailed(refreshToken: "r0", because: .invalidGrant, startedIn: session.generation)
            }
            let change = session.read(Sessions.marked(elsewhere))
            #expect(change == .adopted(discarded: nil), "\(name)")
            #expect(session.current == Sessions.marked(elsewhere) && session.stored == Sessions.marked(elsewhere))
            #expect(session.rejection == nil && session.knownRejection(of: "r0") == nil, "\(name)")
            #expect(session.needsRecovery, "\(name): a version marked as refreshing is recovered first")
            #expect(session.servable == nil, "\(name)")
        }
    }

    @Test("a read of a removed or ended entry ends a signed-in session with the reason")
    func readEnds() {
        var removed = Sessions.signedIn()
        let change = removed.read(nil)
        guard case .ended(let rejection, nil) = change else { Issue.record("not ended"); return }
        #expect(rejection.code == .signedOut)
        #expect(rejection.reason == "Sign-in required: the session was signed out in another process.")
        #expect(removed.current == nil && removed.stored == nil && removed.rejection == rejection)

        var ended = Sessions.signedIn()
        let ending = ended.read(Sessions.ended)
        #expect(ending == .ended(rejection: .sessionEnded("x"), discarded: nil))
        #expect(ended.current == nil && ended.stored == Sessions.ended && ended.rejection?.code == .sessionEnded)
        let again = ended.read(Sessions.ended)
        #expect(again == ReadAction.none, "read again: nothing new")

        var neverStored = Sessions.noCredentials()
        let nothing = neverStored.read(nil)
        #expect(nothing == ReadAction.none)
        #expect(neverStored.rejection == nil, "still no credentials, not signed out")
    }

    @Test("a read of another version drops a refresh's unwritten answer, to revoke, and wins over it")
    func readDropsAnswer() {
        var adopted = Sessions.signedIn()
        let answered = adopted.refreshAnswered(new, startedIn: 0)
        #expect(answered == .write)
        let change = adopted.read(elsewhere)
        #expect(change == .adopted(discarded: .init(tokens: new, base: old)))
        #expect(adopted.pendingWrite == nil && adopted.current == elsewhere && adopted.servable == elsewhere)

        var removed = Sessions.signedIn()
        _ = removed.refreshAnswered(new, startedIn: 0)
        _ = removed.answerReleased(new, startedIn: 0, at: Sessions.now)
        let ending = removed.read(nil)
        guard case .ended(_, let discarded) = ending else { Issue.record("not ended"); return }
        #expect(discarded == .init(tokens: new, base: old))
        #expect(removed.pendingWrite == nil && removed.current == nil)
    }

    @Test("a read that finds the write this session owed: it had landed, and counts as written")
    func readLanded() {
        var session = Sessions.signedIn()
        _ = session.refreshAnswered(new, startedIn: 0)
        let change = session.read(Sessions.reread(new))
        #expect(change == .landed(found: Sessions.reread(new)))
        #expect(session.pendingWrite == nil && session.stored == new && session.current == old)
    }

    @Test("a read of another version while a sign-in waits to be written: the sign-in stays the session")
    func readKeepsSignIn() {
        for found in [elsewhere, Sessions.ended, nil] {
            var session = Sessions.signedIn()
            session.signIn(new)
            let change = session.read(found)
            #expect(change == ReadAction.none)
            #expect(session.current == new && session.pendingWrite == .signIn(new) && session.stored == found)
            #expect(session.rejection == nil)
        }
    }

    @Test("sign-in, in every state: its tokens are the session, owed to the store, and the generation grows")
    func signIn() {
        for (name, var session) in Sessions.loaded + [("unloaded", Sessions.unloaded())] {
            let stored = session.stored
            let generation = session.generation
            session.signIn(new)
            #expect(session.generation == generation + 1 && !session.isCurrent(generation), "\(name)")
            #expect(session.current == new && session.rejection == nil && session.pendingWrite == .signIn(new))
            #expect(session.stored == stored, "\(name): the stored version stays the witness")
            #expect(session.servable == nil && session.tokensNeeded(at: Sessions.now) == .serve(new), "\(name)")
        }
        var refused = Sessions.signedIn()
        refused.refreshFailed(refreshToken: "r0", because: .invalidGrant, startedIn: 0)
        refused.signIn(old)
        #expect(refused.knownRejection(of: "r0") == nil, "new credentials clear a refusal, even with the same token")
    }

    @Test("sign-out, in every state: nothing in memory, nothing owed, the old stored version until the erase")
    func signOut() {
        for (name, var session) in Sessions.loaded + [("unloaded", Sessions.unloaded())] {
            if session.isLoaded { _ = session.refreshAnswered(new, startedIn: session.generation) }
            let stored = session.stored
            let generation = session.generation
            session.signOut()
            #expect(session.generation == generation + 1, "\(name)")
            #expect(session.current == nil && session.pendingWrite == nil && session.stored == stored, "\(name)")
            #expect(session.rejection?.code == .signedOut, "\(name)")
            #expect(session.rejection?.reason == "Sign-in required: the session was logged out.", "\(name)")
            session.erased()
            #expect(session.stored == nil, "\(name)")
        }
    }

    @Test("writes: one at a time, cleared only by the store accepting exactly the owed tokens")
    func writes() {
        var session = Sessions.signedIn()
        let nothingOwed = session.writeStarted()
        #expect(nothingOwed == nil)
        _ = session.refreshAnswered(new, startedIn: 0)
        #expect(session.writeDue == .replacing(base: old, with: new))
        let write = session.writeStarted()
        #expect(write == .replacing(base: old, with: new))
        #expect(session.writeDue == nil, "a write is under way: no second one")
        session.writeEnded()
        #expect(session.writeDue == .replacing(base: old, with: new), "failed: owed to the next caller")

        session.written(Sessions.marked(old))
        #expect(session.stored == Sessions.marked(old) && session.pendingWrite != nil, "another version: still owed")
        _ = session.answerReleased(new, startedIn: 0, at: Sessions.now)
        #expect(session.current == new && session.servable == nil, "not handed out before the store has it")
        session.written(new)
        #expect(session.pendingWrite == nil && session.stored == new && session.servable == new)
    }

    @Test("servable: only signed in, nothing owed, nothing to recover, no identity check pending, not ended")
    func servable() {
        var pending = new
        pending.unverifiedIDToken = "id-token"
        #expect(Sessions.signedIn(pending, checksIdentity: true).servable == nil)
        #expect(Sessions.signedIn(pending, checksIdentity: false).servable == pending)
        #expect(Sessions.signedIn(Sessions.marked(old)).servable == nil)
        for (name, session) in Sessions.loaded where session.current == nil {
            #expect(session.servable == nil, "\(name)")
        }
        var endedSignIn = Sessions.signedIn()
        endedSignIn.signIn(Sessions.ended)
        endedSignIn.written(Sessions.ended)
        #expect(endedSignIn.current == Sessions.ended && endedSignIn.servable == nil)
    }
}

private typealias ReadAction = SessionState.ReadAction
