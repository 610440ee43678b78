import Foundation
import Testing
import TokenAuth
import TokenAuthTesting

/// A manager with a ``RefreshHost`` (what `AuthSession.bootstrap()` gives an app) hands its refreshes to the other
/// process: it never sends a grant itself, runs the host once for every caller, serves what the host stored, and
/// backs off after the host's transient failures as after its own.
@Suite("AuthManager with a RefreshHost: the refresh runs in another process")
struct AuthManagerRefreshHostTests: AuthManagerRules {
    let clock = ManualWallClock()

    func manager(_ store: ControlledAuthStore, _ endpoint: ScriptedTokenEndpoint, host: ScriptedRefreshHost) -> AuthManager {
        manager(store, endpoint, configuration: .init(backoff: Backoff(jitter: false), refreshHost: host))
    }

    @Test("the host runs once for five callers, no grant is sent here, and what it stored is served")
    func hostStoresAndIsServed() async throws {
        let store = ControlledAuthStore(expired)
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        let now = clock.now
        let host = ScriptedRefreshHost { run in
            store.replaceStored(Auth(accessToken: "elsewhere-\(run)", refreshToken: "r-\(run)", expiresAt: now.addingTimeInterval(3600)))
        }
        let manager = manager(store, endpoint, host: host)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<5 { group.addTask { try await manager.validToken() } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(tokens) == ["elsewhere-1"])
        #expect(host.runs == 1)
        #expect(host.requests == [.needed])
        #expect(endpoint.grantCount == 0, "the grant is never sent by this process")
    }

    @Test("a server's rejection asks the host for another token than the rejected one")
    func rejectionIsPassedOn() async throws {
        let fresh = Auth(accessToken: "current", refreshToken: "r", expiresAt: clock.now.addingTimeInterval(3600))
        let store = ControlledAuthStore(fresh)
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        let now = clock.now
        let host = ScriptedRefreshHost { _ in
            store.replaceStored(Auth(accessToken: "next", refreshToken: "r2", expiresAt: now.addingTimeInterval(3600)))
        }
        let manager = manager(store, endpoint, host: host)
        #expect(try await manager.validToken() == "current")
        #expect(try await manager.refresh(rejecting: "current").accessToken == "next")
        #expect(host.requests == [.rejected(accessToken: "current")])
        #expect(endpoint.grantCount == 0)
    }

    @Test("a transient failure of the host starts a backoff: no second run before it ends, one after")
    func transientFailureBacksOff() async throws {
        let store = ControlledAuthStore(expired)
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        let host = ScriptedRefreshHost()
        host.fail(with: TokenAuthError.networkFailure)
        let manager = manager(store, endpoint, host: host)

        let first = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(first?.isTransient == true)
        let second = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(second?.code == .backingOff, "\(String(describing: second))")
        #expect(host.runs == 1, "no process is started while backing off")

        clock.advance(by: 3600)
        _ = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(host.runs == 2)
        #expect(endpoint.grantCount == 0)
    }

    @Test("a host that ends without storing: the call fails, the tokens are kept")
    func hostStoredNothing() async throws {
        let store = ControlledAuthStore(expired)
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        let host = ScriptedRefreshHost()
        let manager = manager(store, endpoint, host: host)
        let error = await #expect(throws: TokenAuthError.self) { try await manager.validToken() }
        #expect(error?.isStorageFailure == true, "\(String(describing: error))")
        #expect(store.stored == expired)
        #expect(endpoint.grantCount == 0)
    }
}
