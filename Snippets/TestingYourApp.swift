// Tests of an app's use of TokenAuth with the doubles of TokenAuthTesting: no network, no keyring, no sleeping.

import Foundation
import Testing
import TokenAuth
import TokenAuthTesting

// snippet.parts
/// The parts an app wires together, with doubles where the network and the keyring would be.
struct Parts {
    let clock = ManualWallClock()  // expiry is decided by this clock, which moves only when the test says
    let endpoint: ScriptedTokenEndpoint  // answers access-1, access-2… and counts the grants
    let store: ControlledAuthStore  // counts loads and saves, fails or holds them on demand
    let api = CannedTransport(json: #"{"name":"Ada"}"#)  // the app's API: one canned answer, counted
    let manager: AuthManager

    init() {
        endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        store = ControlledAuthStore(
            Auth(accessToken: "access-0", refreshToken: "refresh-0", expiresAt: clock.now.addingTimeInterval(600)))
        manager = AuthManager(store: store, refresher: endpoint, wallClock: clock.wallClock)
    }
}

struct Profile: Decodable {
    let name: String
}
// snippet.end

// snippet.expiry
@Test("after an hour the app refreshes once, however many requests it makes")
func refreshOnceAfterExpiry() async throws {
    let parts = Parts()
    let client = AuthorizedClient(manager: parts.manager, transport: parts.api)
    let url = URL(string: "https://api.example.com/me")!
    parts.clock.advance(by: .seconds(3600))  // the token has expired; the test did not wait for it

    try await withThrowingTaskGroup(of: Profile.self) { group in
        for _ in 0..<50 { group.addTask { try await client.load(Profile.self, from: url) } }
        for try await profile in group { #expect(profile.name == "Ada") }
    }
    #expect(parts.endpoint.grantCount == 1)
    #expect(parts.store.stored?.accessToken == "access-1")  // stored before any request used it
    #expect(parts.api.lastRequest?.headerFields[.authorization] == "Bearer access-1")
}
// snippet.end

// snippet.rejected
@Test("when the provider rejects the refresh token, the app asks the user to sign in again")
func rejectedRefreshAsksForSignIn() async throws {
    let parts = Parts()
    let client = AuthorizedClient(manager: parts.manager, transport: parts.api)
    parts.clock.advance(by: .seconds(3600))
    parts.endpoint.fail(with: TokenAuthError.invalidGrant)

    let error = await #expect(throws: TokenAuthError.self) {
        try await client.load(Profile.self, from: URL(string: "https://api.example.com/me")!)
    }
    #expect(error?.isLoginRequired == true)
    #expect(parts.api.sendCount == 0)  // no request left without a valid token
    #expect(parts.store.eraseCount == 0)  // the stored item is kept for the user to inspect
}
// snippet.end

// snippet.held
@Test("a refresh in progress is shared: a request made meanwhile gets its token, and no second refresh starts")
func heldRefresh() async throws {
    let parts = Parts()
    parts.clock.advance(by: .seconds(3600))
    parts.endpoint.gate.close()  // the token endpoint holds its answers until the test opens the gate

    async let first = parts.manager.validToken()
    await parts.endpoint.waitForGrants(1)  // the refresh has been sent: no sleeping, no timing
    async let second = parts.manager.validToken()
    parts.endpoint.gate.open()

    #expect(try await [first, second] == ["access-1", "access-1"])
    #expect(parts.endpoint.grantCount == 1)
}
// snippet.end
