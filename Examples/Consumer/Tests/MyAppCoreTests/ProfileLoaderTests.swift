// Tests of the app's logic with the doubles of TokenAuthTesting: no network, no keyring, no sleeping — and no
// libsecret, which neither MyAppCore nor TokenAuthTesting links.

import Foundation
import MyAppCore
import Testing
import TokenAuth
import TokenAuthTesting

// snippet.parts
/// The parts the app wires together, with doubles where the network and the keyring would be.
struct Parts {
    let clock = ManualWallClock()  // expiry is decided by this clock, which moves only when the test says
    let endpoint: ScriptedTokenEndpoint  // answers access-1, access-2… and counts the grants
    let store: ControlledAuthStore  // counts loads and saves, fails or holds them on demand
    let api = CannedTransport(json: #"{"name":"Ada"}"#)  // the app's API: one canned answer, counted
    let manager: AuthManager
    let loader: ProfileLoader  // the app's logic, as the app makes it, with a client over the doubles

    init() {
        endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        store = ControlledAuthStore(
            Auth(accessToken: "access-0", refreshToken: "refresh-0", expiresAt: clock.now.addingTimeInterval(600)))
        manager = AuthManager(store: store, refresher: endpoint, wallClock: clock.wallClock)
        loader = ProfileLoader(
            api: AuthorizedClient(manager: manager, transport: api), url: URL(string: "https://api.example.com/me")!)
    }
}
// snippet.end

// snippet.expiry
@Test("after an hour the app refreshes once, however many profiles it loads")
func refreshOnceAfterExpiry() async throws {
    let parts = Parts()
    parts.clock.advance(by: .seconds(3600))  // the token has expired; the test did not wait for it

    try await withThrowingTaskGroup(of: ProfileScreen.self) { group in
        for _ in 0..<50 { group.addTask { try await parts.loader.load() } }
        for try await screen in group { #expect(screen == .profile(Profile(name: "Ada"))) }
    }
    #expect(parts.endpoint.grantCount == 1)
    #expect(parts.store.stored?.accessToken == "access-1")  // stored before any request used it
    #expect(parts.api.lastRequest?.headerFields[.authorization] == "Bearer access-1")
}
// snippet.end

// snippet.rejected
@Test("when the provider rejects the refresh token, the app shows its sign-in screen")
func rejectedRefreshAsksForSignIn() async throws {
    let parts = Parts()
    parts.clock.advance(by: .seconds(3600))
    parts.endpoint.fail(with: TokenAuthError.invalidGrant)

    guard case .signInRequired = try await parts.loader.load() else {
        Issue.record("a rejected session did not lead to the sign-in screen")
        return
    }
    #expect(parts.api.sendCount == 0)  // no request left without a valid token
    #expect(parts.store.eraseCount == 0)  // the stored item is kept for the user to inspect
}
// snippet.end

// snippet.held
@Test("a refresh in progress is shared: a load made meanwhile gets its token, and no second refresh starts")
func heldRefresh() async throws {
    let parts = Parts()
    parts.clock.advance(by: .seconds(3600))
    parts.endpoint.gate.close()  // the token endpoint holds its answers until the test opens the gate

    async let first = parts.loader.load()
    await parts.endpoint.waitForGrants(1)  // the refresh has been sent: no sleeping, no timing
    async let second = parts.loader.load()
    parts.endpoint.gate.open()

    #expect(try await [first, second] == [.profile(Profile(name: "Ada")), .profile(Profile(name: "Ada"))])
    #expect(parts.endpoint.grantCount == 1)
}
// snippet.end
