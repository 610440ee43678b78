import Foundation
import Testing
@testable import TokenAuth

/// ``SessionState``'s events that settle a refresh's fate — an identity check, an answer kept in the journal, a
/// permanent refusal — on plain values.
@Suite("SessionState: identity checks, kept answers and refusals")
struct SessionStateEndingTests {
    let now = Sessions.now, old = Sessions.old, new = Sessions.new, elsewhere = Sessions.elsewhere
    let ada = Identity(issuer: URL(string: "https://issuer.example")!, subject: "ada")

    /// `auth` signed in as ``ada``, with `idToken` waiting to be checked.
    func withIdentity(_ auth: Auth, pending idToken: String? = nil) -> Auth {
        var auth = auth
        auth.identity = ada
        auth.unverifiedIDToken = idToken
        return auth
    }

    @Test("a pending identity check that passes confirms the tokens, owed to the store; if they changed, nothing")
    func identityConfirmed() {
        let pending = withIdentity(old, pending: "id-token")
        var session = Sessions.signedIn(pending, checksIdentity: true)
        #expect(session.pendingIdentityCheck == pending && session.servable == nil)
        let checked = withIdentity(old)
        let confirmed = session.identityConfirmed(checked, replacing: pending, startedIn: 0)
        #expect(confirmed)
        #expect(session.current == checked && session.pendingWrite == .replacing(base: pending, with: checked))
        #expect(session.pendingIdentityCheck == nil)

        var changed = Sessions.signedIn(pending, checksIdentity: true)
        let adopted = changed.read(elsewhere)
        #expect(adopted == .adopted(discarded: nil))
        let afterChange = changed.identityConfirmed(checked, replacing: pending, startedIn: 0)
        #expect(!afterChange)
        #expect(changed.current == elsewhere && changed.pendingWrite == nil)

        var replaced = Sessions.signedIn(pending, checksIdentity: true)
        replaced.signIn(pending)
        let afterSignIn = replaced.identityConfirmed(checked, replacing: pending, startedIn: 0)
        #expect(!afterSignIn, "a sign-in came since")
        #expect(Sessions.signedIn(withIdentity(old)).pendingIdentityCheck == nil)
    }

    @Test("an id_token of another account ends the session: the entry keeps who and why, without a refresh token")
    func identityRejected() throws {
        var session = Sessions.signedIn(withIdentity(old))
        let mismatch = TokenAuthError(.identityMismatch, "another account", fix: "sign in")
        let rejection = session.identityRejected(answer: withIdentity(new), base: withIdentity(old), because: mismatch)
        #expect(rejection.code == .sessionEnded && (rejection.underlying as? TokenAuthError)?.code == .identityMismatch)
        let reason = "a refresh answered for another account than the one signed in, so its tokens were discarded"
        #expect(rejection.reason == "Sign-in required: \(reason).")
        #expect(session.current == nil && session.rejection == rejection && session.servable == nil)
        guard case .replacing(let base, let entry)? = session.pendingWrite else {
            Issue.record("the ended entry is not owed to the store")
            return
        }
        #expect(base == withIdentity(old))
        #expect(entry.accessToken == "a0" && entry.refreshToken == nil && entry.identity == ada)
        #expect(entry.endReason == reason)

        var memoryOnly = Sessions.noCredentials(usesClientCredentials: true)
        let untrusted = TokenAuthError(.identityUntrusted, "no keys", fix: "configure")
        _ = memoryOnly.identityRejected(answer: withIdentity(new), base: nil, because: untrusted)
        let kept = try #require(memoryOnly.pendingWrite)
        #expect(kept.auth.accessToken == "a1" && kept.auth.refreshToken == nil, "with nothing stored, from the answer")
        #expect(kept.auth.endReason?.hasPrefix("the id_token of a refresh could not be verified (no keys)") == true)
    }

    @Test("a kept answer: none, one the store holds, one that lost to a newer version, one to store")
    func keptAnswerFound() {
        var session = Sessions.signedIn()
        let nothing = session.keptAnswerFound(nil)
        #expect(nothing == .none)
        let landed = session.keptAnswerFound(KeptAnswer(answer: Sessions.reread(old), base: nil))
        #expect(landed == .discard)
        #expect(session.current == old && session.pendingWrite == nil)

        let lost = KeptAnswer(answer: new, base: elsewhere)
        let lostAction = session.keptAnswerFound(lost)
        #expect(lostAction == .revoke(.init(tokens: new, base: old)))
        #expect(session.current == old && session.pendingWrite == nil)

        session.refreshFailed(refreshToken: "r0", because: .invalidGrant, startedIn: 0)
        let toStore = session.keptAnswerFound(KeptAnswer(answer: new, base: Sessions.marked(old)))
        #expect(toStore == .store(new))
        #expect(session.current == new && session.pendingWrite == .replacing(base: old, with: new))
        #expect(session.rejection == nil, "the kept answer is new credentials")
        session.recovered()
        #expect(session.servable == nil, "still owed to the store")
    }

    @Test("a kept answer made when nothing was stored is stored only while nothing is, in every state")
    func keptAnswerFromNothing() {
        let expected: [String: SessionState.KeptAnswerAction] = [
            "signed in": .revoke(.init(tokens: new, base: old)), "no credentials": .store(new),
            "ended elsewhere": .revoke(.init(tokens: new, base: Sessions.ended)), "signed out": .store(new),
        ]
        for (name, var session) in Sessions.loaded {
            let kept = session.keptAnswerFound(KeptAnswer(answer: new, base: nil))
            #expect(kept == expected[name], "\(name)")
        }
    }

    @Test("a marked version waits for recovery until the manager acted on what the journal holds")
    func recovery() {
        var marked = Sessions.signedIn(Sessions.marked(old))
        #expect(marked.needsRecovery && marked.servable == nil)
        let kept = marked.keptAnswerFound(nil)
        #expect(kept == .none && marked.needsRecovery, "recovered only once the action is done")
        marked.recovered()
        #expect(!marked.needsRecovery && marked.servable == Sessions.marked(old))
    }

    @Test("a refusal of the stored refresh token: keep the entry ended after invalid_grant, or erase it by policy")
    func refreshRefused() {
        var kept = Sessions.signedIn()
        kept.refreshFailed(refreshToken: "r0", because: .invalidGrant, startedIn: 0)
        let settled = kept.refreshRefused("r0", because: .invalidGrant)
        #expect(settled == .writeEnded)
        #expect(kept.current == nil && kept.rejection == .invalidGrant)
        guard case .replacing(old, let entry)? = kept.pendingWrite else {
            Issue.record("the ended entry is not owed in place of the stored version")
            return
        }
        #expect(entry.refreshToken == nil && entry.accessToken == "a0")
        #expect(entry.endReason == "the authorization server refused the refresh token (invalid_grant), which is not sent again")

        var otherRefusal = Sessions.signedIn()
        let ignored = otherRefusal.refreshRefused("r0", because: .rejected("invalid_scope"))
        #expect(ignored == .none)
        #expect(otherRefusal.current == old && otherRefusal.pendingWrite == nil)

        var erased = Sessions.signedIn(rejectionPolicy: .eraseStoredCredentials)
        erased.refreshFailed(refreshToken: "r0", because: .rejected("invalid_scope"), startedIn: 0)
        let erasing = erased.refreshRefused("r0", because: .rejected("invalid_scope"))
        #expect(erasing == .erase)
        #expect(erased.current == nil && erased.pendingWrite == nil && erased.rejection == .rejected("invalid_scope"))
        #expect(erased.stored == old, "until the store erased it")
    }

    @Test("a refusal changes nothing once the store holds another version, or when no refresh token was sent")
    func refreshRefusedElsewhere() {
        for policy in [AuthManager.RejectionPolicy.keepStoredCredentials, .eraseStoredCredentials] {
            var newer = Sessions.signedIn(rejectionPolicy: policy)
            _ = newer.read(elsewhere)
            let settled = newer.refreshRefused("r0", because: .invalidGrant)
            #expect(settled == .none)
            #expect(newer.current == elsewhere)
            var unsent = Sessions.signedIn(rejectionPolicy: policy)
            let unsentAction = unsent.refreshRefused(nil, because: .invalidGrant)
            #expect(unsentAction == .none)
            var ended = Sessions.endedElsewhere()
            let endedAction = ended.refreshRefused("r0", because: .invalidGrant)
            #expect(endedAction == .none)
        }
    }
}
