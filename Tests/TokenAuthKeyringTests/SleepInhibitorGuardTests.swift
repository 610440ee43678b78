import Foundation
import Keyring
import KeyringTestSupport
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthKeyring
import TokenAuthTesting

/// While a refresh token is at stake a manager holds a delay lock on sleep and shutdown, asked of a fake
/// systemd-logind (python-dbusmock's template on a private system bus); what the fake holds is asked of it, at
/// moments the test makes by holding the grant's answer and the store's write.
@Suite("A delay lock on suspend while a refresh grant is in flight", .needsFakeLogind, .timeLimit(.minutes(2)))
struct SleepInhibitorGuardTests {
    static func windowGuard(_ logind: FakeLogind) -> SleepInhibitorGuard {
        SleepInhibitorGuard(inhibitor: SleepInhibitor(
            who: "TokenKeyring tests", why: "Storing refreshed sign-in tokens", busAddress: logind.busAddress,
            timeout: .seconds(10)))
    }

    @Test("taken while the grant is at the server and while its answer is written; released once it is stored")
    func heldThroughTheWindow() async throws {
        try await FakeLogind.with { logind in
            let clock = ManualWallClock()
            let store = ControlledAuthStore(
                Auth(accessToken: "access-0", refreshToken: "refresh-0", expiresAt: clock.now.addingTimeInterval(-10)))
            let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
            let manager = AuthManager(
                store: store, refresher: endpoint,
                configuration: .init(windowGuards: [Self.windowGuard(logind)]), wallClock: clock.wallClock)
            #expect(try await logind.heldInhibitors().isEmpty)

            endpoint.gate.close()
            store.saveGate.close()
            let refresh = Task { try await manager.validToken() }
            await endpoint.waitForGrants(1)
            #expect(try await logind.heldInhibitors().map(\.mode) == ["delay"], "while the grant is at the server")
            endpoint.gate.open()
            await store.saveGate.waitUntilArrivals(1)
            #expect(try await logind.heldInhibitors().count == 1, "while its answer is written")
            store.saveGate.open()

            #expect(try await refresh.value == "access-1")
            #expect(store.stored?.accessToken == "access-1")
            try await waitUntil("the delay lock to be released") { try await logind.heldInhibitors().isEmpty }
            // A token that needs no refresh takes none.
            #expect(try await manager.validToken() == "access-1")
            #expect(try await logind.heldInhibitors().isEmpty)
        }
    }

    @Test("a keyring item's manager holds one around a real refresh, and adds the guard by default", .needsSecretService)
    func keyringItemManager() async throws {
        try await FakeLogind.with { logind in
            try await RefreshFixture.with { fixture in
                let store = KeyringAuthStore(
                    service: TestKeyring.uniqueService(), account: "alice", client: fixture.client,
                    keyring: TestKeyring.keyring)
                try await cleaningUp({ _ = try? await store.erase() }) {
                    try await store.save(fixture.seed())
                    let byDefault = try await AuthManager.forKeyringItem(
                        service: store.service, account: store.account, keyring: TestKeyring.keyring,
                        transport: fixture.transport, followsChanges: false)
                    #expect(byDefault.configuration.windowGuards.contains { $0 is SleepInhibitorGuard })

                    let manager = try await AuthManager.forKeyringItem(
                        service: store.service, account: store.account, keyring: TestKeyring.keyring,
                        transport: fixture.transport, configuration: .init(windowGuards: [Self.windowGuard(logind)]),
                        followsChanges: false, wallClock: fixture.clock.wallClock)
                    #expect(manager.configuration.windowGuards.count == 1, "the given guard, not a second one")
                    fixture.server.holdTokenAnswers()
                    let refresh = Task { try await manager.validToken() }
                    try await fixture.server.waitForHeldTokenRequests(1)
                    #expect(try await logind.heldInhibitors().count == 1)
                    fixture.server.releaseTokenAnswers()
                    let token = try await refresh.value
                    #expect(try await store.load()?.accessToken == token)
                    try await waitUntil("the delay lock to be released") { try await logind.heldInhibitors().isEmpty }
                    #expect(fixture.server.stats.refreshGrants == 1)
                }
            }
        }
    }
}
