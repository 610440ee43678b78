import Foundation
import TestSupport
import Testing
import TokenAuth
import TokenAuthTesting

/// A sign-in or sign-out that comes while a refresh is under way wins over it.
@Suite("AuthManager rules, with the testing doubles: a sign-in or sign-out during a refresh", .timeLimit(.minutes(1)))
struct AuthManagerReplacementRuleTests: AuthManagerRules {
    let clock = ManualWallClock()

    @Test("sign-out during a refresh: nothing is written back, and the waiters get loginRequired")
    func signOutDuringRefresh() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.gate.close()

        let caller = Task { try await manager.validToken() }
        await endpoint.waitForGrants(1)
        let generation = await manager.sessionGeneration
        let signOut = Task { try await manager.signOut() }
        // `signOut()` ends the session at once and then waits for the refresh: answer once it has begun.
        try await waitUntil("the sign-out to begin") { await manager.sessionGeneration > generation }
        endpoint.gate.open()
        try await signOut.value
        let error = await #expect(throws: TokenAuthError.self) { try await caller.value }
        #expect(error?.isLoginRequired == true)
        #expect(store.stored == nil)
        #expect(store.savedBundles.isEmpty)
        await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
    }

    @Test("sign-in during a refresh wins: the waiters get the new session, and the refresh result is not stored")
    func signInDuringRefresh() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.gate.close()
        let signedIn = Auth(accessToken: "signed-in", refreshToken: "r-new", expiresAt: clock.now.addingTimeInterval(3600))

        let caller = Task { try await manager.validToken() }
        await endpoint.waitForGrants(1)
        try await manager.signIn(signedIn)
        endpoint.gate.open()

        #expect(try await caller.value == "signed-in")
        #expect(store.savedBundles == [signedIn])
        #expect(try await manager.validToken() == "signed-in")
    }
}
