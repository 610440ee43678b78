import Foundation
import Testing
@testable import TokenAuth

/// ``SessionState``'s decisions for callers and refreshes — tokens needed, a refresh asked for, answered, released or
/// refused — in each state, on plain values.
@Suite("SessionState: what a caller gets, and what a refresh does")
struct SessionStateRefreshTests {
    let now = Sessions.now, old = Sessions.old, new = Sessions.new

    /// `auth` expiring `seconds` after ``now``.
    func expiring(_ auth: Auth, in seconds: TimeInterval) -> Auth {
        var expiring = auth
        expiring.expiresAt = now + seconds
        return expiring
    }

    @Test("tokens needed: fresh ones are served; others refreshed, with the still-valid ones as the fallback")
    func tokensNeededSignedIn() {
        #expect(Sessions.signedIn().tokensNeeded(at: now) == .serve(old))
        let inLeeway = expiring(old, in: 30)
        #expect(Sessions.signedIn(inLeeway).tokensNeeded(at: now) == .refresh(fallback: inLeeway))
        let expired = expiring(old, in: -10)
        #expect(Sessions.signedIn(expired).tokensNeeded(at: now) == .refresh(fallback: expired))
    }

    @Test("tokens needed while signed out: why a sign-in is required, or the client credentials grant")
    func tokensNeededSignedOut() {
        guard case .fail(let none) = Sessions.noCredentials().tokensNeeded(at: now) else {
            Issue.record("no credentials served something")
            return
        }
        #expect(none.code == .noCredentials && none.reason == "Sign-in required: no credentials are stored.")
        #expect(Sessions.endedElsewhere().tokensNeeded(at: now) == .fail(.sessionEnded("x")))
        #expect(Sessions.signedOut().tokensNeeded(at: now) == .fail(.signedOut("x")))

        #expect(Sessions.noCredentials(usesClientCredentials: true).tokensNeeded(at: now) == .refresh(fallback: nil))
        #expect(Sessions.signedOut(usesClientCredentials: true).tokensNeeded(at: now) == .refresh(fallback: nil))
        #expect(
            Sessions.endedElsewhere(usesClientCredentials: true).tokensNeeded(at: now) == .fail(.sessionEnded("x")),
            "an ended entry is not replaced by the client's own tokens")
    }

    @Test("a refresh asked for: tokens that serve its reason, else a request with the current refresh token")
    func refreshAskedReasons() {
        let session = Sessions.signedIn()
        #expect(session.refreshAsked(.needed, startedIn: 0, at: now, backingOff: nil) == .serve(old))
        #expect(session.refreshAsked(.forced, startedIn: 0, at: now, backingOff: nil) == .request(base: old))
        #expect(session.refreshAsked(.rejected("a-other"), startedIn: 0, at: now, backingOff: nil) == .serve(old))
        #expect(session.refreshAsked(.rejected("a0"), startedIn: 0, at: now, backingOff: nil) == .request(base: old))
        #expect(session.tokens(serving: .rejected("a0"), at: now) == nil)
        #expect(session.tokens(serving: .rejected("a-other"), at: now) == old)
        let expired = Sessions.signedIn(expiring(old, in: -10))
        #expect(expired.refreshAsked(.rejected("a-other"), startedIn: 0, at: now, backingOff: nil) == .request(
            base: expiring(old, in: -10)), "an expired token serves no reason")
    }

    @Test("a refresh asked for fails without a request: backing off, a refused refresh token, nothing to send")
    func refreshAskedFails() {
        let backingOff = TokenAuthError.backingOff(after: .invalidGrant, retryAfter: .seconds(1))
        let session = Sessions.signedIn()
        #expect(session.refreshAsked(.forced, startedIn: 0, at: now, backingOff: backingOff) == .fail(backingOff))
        #expect(session.refreshAsked(.needed, startedIn: 0, at: now, backingOff: backingOff) == .serve(old),
            "tokens that serve the reason are served even while backing off")

        var refused = Sessions.signedIn()
        refused.refreshFailed(refreshToken: "r0", because: .invalidGrant, startedIn: 0)
        #expect(refused.refreshAsked(.forced, startedIn: 0, at: now, backingOff: nil) == .fail(.invalidGrant))

        let noRefreshToken = Sessions.signedIn(Auth(accessToken: "a0", expiresAt: now + 3600))
        let nothing = Sessions.noCredentials()
        for (session, reason) in [
            (noRefreshToken, "Sign-in required: there is no refresh token."),
            (nothing, "Sign-in required: no credentials are stored."),
        ] {
            guard case .fail(let error) = session.refreshAsked(.forced, startedIn: 0, at: now, backingOff: nil) else {
                Issue.record("asked the server with nothing to send")
                continue
            }
            #expect(error.code == .noCredentials && error.reason == reason)
        }
        let client = Sessions.noCredentials(usesClientCredentials: true)
        #expect(client.refreshAsked(.needed, startedIn: 0, at: now, backingOff: nil) == .request(base: nil))
    }

    @Test("a refresh that started before a sign-in or sign-out serves the new session, or why a sign-in is required")
    func refreshAskedAfterReplacement() {
        var signedIn = Sessions.signedIn()
        signedIn.signIn(new)
        #expect(signedIn.refreshAsked(.forced, startedIn: 0, at: now, backingOff: nil) == .serve(new))
        #expect(signedIn.refreshAsked(.forced, startedIn: 1, at: now, backingOff: nil) == .request(base: new))

        var signedOut = Sessions.signedIn()
        signedOut.signOut()
        #expect(signedOut.refreshAsked(.forced, startedIn: 0, at: now, backingOff: nil) == .fail(.signedOut("x")))

        var expiredSignIn = Sessions.signedIn()
        expiredSignIn.signIn(expiring(new, in: -10))
        #expect(expiredSignIn.afterReplacement(at: now) == .failure(.signedOut("x")))
    }

    @Test("a permanent failure records the refusal of its refresh token, unless a sign-in or sign-out came since")
    func refreshFailed() {
        var session = Sessions.signedIn()
        session.refreshFailed(refreshToken: "r0", because: .invalidGrant, startedIn: 0)
        #expect(session.knownRejection(of: "r0") == .invalidGrant && session.knownRejection(of: "r1") == nil)
        #expect(session.rejection == .invalidGrant && session.current == old, "the access token is still served")

        var stale = Sessions.signedIn()
        stale.signIn(new)
        stale.refreshFailed(refreshToken: "r1", because: .invalidGrant, startedIn: 0)
        #expect(stale.knownRejection(of: "r1") == nil && stale.rejection == nil)

        var client = Sessions.noCredentials(usesClientCredentials: true)
        let misconfigured = TokenAuthError.invalidClientConfiguration("x")
        client.refreshFailed(refreshToken: nil, because: misconfigured, startedIn: 0)
        #expect(client.rejection == misconfigured && client.current == nil)
        #expect(client.tokensNeeded(at: now) == .refresh(fallback: nil), "the client's grant is asked for again")
    }

    @Test("an answer is owed to the store in place of the stored version, then released; after a sign-in, discarded")
    func answer() {
        var session = Sessions.signedIn()
        let answered = session.refreshAnswered(new, startedIn: 0)
        #expect(answered == .write)
        #expect(session.pendingWrite == .replacing(base: old, with: new) && session.current == old)
        let released = session.answerReleased(new, startedIn: 0, at: now)
        #expect(released == .success(new))
        #expect(session.current == new && session.servable == nil)

        var memoryOnly = Sessions.noCredentials(usesClientCredentials: true)
        let memoryAnswered = memoryOnly.refreshAnswered(new, startedIn: 0)
        #expect(memoryAnswered == .write)
        #expect(memoryOnly.pendingWrite == .replacing(base: nil, with: new), "nothing stored: the write creates")
        let memoryReleased = memoryOnly.answerReleased(new, startedIn: 0, at: now)
        #expect(memoryReleased == .success(new))
        #expect(memoryOnly.current == new && memoryOnly.rejection == nil)

        var replaced = Sessions.signedIn()
        replaced.signIn(elsewhere)
        let lateAnswer = replaced.refreshAnswered(new, startedIn: 0)
        #expect(lateAnswer == .discard)
        #expect(replaced.pendingWrite == .signIn(elsewhere))
        let lateRelease = replaced.answerReleased(new, startedIn: 0, at: now)
        #expect(lateRelease == .success(elsewhere))
        #expect(replaced.current == elsewhere)
    }

    @Test("another process wrote first: its tokens while valid, else superseded")
    func afterSupersede() {
        #expect(Sessions.signedIn().afterSupersede(at: now) == .success(old))
        #expect(Sessions.signedIn(expiring(old, in: -10)).afterSupersede(at: now) == .failure(.superseded("x")))
        #expect(Sessions.noCredentials().afterSupersede(at: now) == .failure(.superseded("x")))
    }

    let elsewhere = Sessions.elsewhere
}
