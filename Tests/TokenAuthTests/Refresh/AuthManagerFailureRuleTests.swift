import Foundation
import Testing
import TokenAuth
import TokenAuthTesting

/// What a failed refresh does: an answer lost in transit, a transient failure (backoff), a permanent rejection, a
/// misconfigured endpoint.
@Suite("AuthManager rules, with the testing doubles: failures of the token endpoint", .timeLimit(.minutes(1)))
struct AuthManagerFailureRuleTests: AuthManagerRules {
    let clock = ManualWallClock()

    @Test("an answer lost in transit is asked for once more at once, with the same refresh token")
    func lostAnswerIsAskedAgain() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.fail(with: TokenAuthError.networkFailure)

        #expect(try await manager.validToken() == "access-2")
        #expect(endpoint.grants == [.refresh(refreshToken: "refresh-0", scope: nil), .refresh(refreshToken: "refresh-0", scope: nil)])
        #expect(store.stored?.refreshToken == "refresh-2")
        #expect(store.stored?.refreshStartedAt == nil)
    }

    @Test("an answer lost twice: the tokens are kept, marked as maybe spent, and the error is transient")
    func answerLostTwice() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.fail(with: TokenAuthError.networkFailure)
        endpoint.fail(with: TokenAuthError.networkFailure)

        let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(error?.isTransient == true)
        #expect(endpoint.grantCount == 2)
        #expect(store.stored?.isSameVersion(as: expired) == true)
        #expect(store.stored?.refreshStartedAt != nil, "status can say the refresh token may have been spent")
    }

    @Test("backoff: after a transient failure the endpoint is left alone for 1 s, then 2 s, then asked again")
    func backoff() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.fail(with: TokenAuthError.serverError)
        endpoint.fail(with: TokenAuthError.serverError)

        var error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(error?.isTransient == true)
        #expect(error?.retryAfter == .seconds(1))
        clock.advance(by: 0.5)
        error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(error?.isTransient == true)
        #expect(endpoint.grantCount == 1)  // not asked while backing off

        clock.advance(by: 0.6)
        error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(error?.retryAfter == .seconds(2))
        #expect(endpoint.grantCount == 2)

        clock.advance(by: 2.1)
        #expect(try await manager.validToken() == "access-3")
        #expect(endpoint.grantCount == 3)
        #expect(store.stored?.accessToken == "access-3")
    }

    @Test("a permanent rejection is loginRequired, keeps the stored tokens, and never resends the refresh token")
    func permanentRejection() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.fail(with: TokenAuthError.invalidGrant)

        for _ in 0..<3 {
            let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(error?.isLoginRequired == true)
        }
        #expect(endpoint.grantCount == 1)
        #expect(store.eraseCount == 0)
        // Kept, but it says so, and holds no refresh token that any process could send again.
        let kept = try #require(store.stored)
        #expect(kept.accessToken == expired.accessToken)
        #expect(kept.refreshToken == nil)
        #expect(kept.endReason?.contains("invalid_grant") == true)
    }

    @Test("a token endpoint that redirects is misconfigured: not a sign-in, nothing erased even by the erase policy, not retried")
    func misconfiguredEndpoint() async throws {
        let (store, endpoint, manager) = parts(
            configuration: .init(backoff: Backoff(jitter: false), rejectionPolicy: .eraseStoredCredentials))
        endpoint.fail(with: TokenAuthError.redirected("token endpoint", to: "https://elsewhere.example/token", statusCode: 307))

        for _ in 0..<2 {
            let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
            #expect(error?.isMisconfiguration == true)
            #expect(error?.isLoginRequired == false)
        }
        #expect(endpoint.grantCount == 1)
        #expect(store.eraseCount == 0)
        #expect(store.stored?.isSameVersion(as: expired) == true)
    }
}
