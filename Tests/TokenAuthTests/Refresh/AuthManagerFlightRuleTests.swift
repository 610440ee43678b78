import Foundation
import TestSupport
import Testing
import TokenAuth
import TokenAuthTesting

/// Single flight: concurrent callers, a rejection of a replaced token, a cancelled caller and a second process share
/// one grant.
@Suite("AuthManager rules, with the testing doubles: one flight", .timeLimit(.minutes(1)))
struct AuthManagerFlightRuleTests: AuthManagerRules {
    let clock = ManualWallClock()

    @Test("single flight: 200 concurrent callers over an expired token cause one grant and all get its token")
    func singleFlight() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.gate.close()

        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<200 { group.addTask { try await manager.validToken() } }
            await endpoint.waitForGrants(1)
            endpoint.gate.open()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(endpoint.grantCount == 1)
        #expect(Set(tokens) == ["access-1"])
        #expect(tokens.count == 200)
        #expect(store.stored?.accessToken == "access-1", "the one grant's tokens are the ones stored")
    }

    @Test("stale-token check: a rejection of a token that was already replaced refreshes nothing")
    func staleTokenCheck() async throws {
        let (store, endpoint, manager) = parts()

        let fresh = try await manager.refresh(rejecting: "access-0")
        #expect(fresh.accessToken == "access-1")
        let again = try await manager.refresh(rejecting: "access-0")
        #expect(again.accessToken == "access-1")
        #expect(endpoint.grantCount == 1)
        // The current token rejected: that one does refresh.
        #expect(try await manager.refresh(rejecting: "access-1").accessToken == "access-2")
        #expect(endpoint.grantCount == 2)
        #expect(store.stored?.accessToken == "access-2")
    }

    @Test("a cancelled caller stops waiting; the shared refresh goes on, is stored and serves the others")
    func cancellation() async throws {
        let (store, endpoint, manager) = parts()
        endpoint.gate.close()

        let cancelled = Task { try await manager.validToken() }
        await endpoint.waitForGrants(1)
        let other = Task { try await manager.validToken() }
        cancelled.cancel()
        // Bounded: were cancellation ignored, the caller would wait for the held grant forever.
        let outcome = await result(of: cancelled, within: .seconds(10))
        #expect(outcome.map { if case .failure(let error) = $0 { error is CancellationError } else { false } } == true)
        #expect(endpoint.answerCount == 0)

        endpoint.gate.open()
        #expect(try await other.value == "access-1")
        #expect(store.stored?.accessToken == "access-1")
        #expect(endpoint.grantCount == 1)
    }

    @Test("across processes: two managers with a real FileRefreshLock over one store make one grant")
    func crossProcess() async throws {
        let temporary = try TemporaryDirectory()
        defer { withExtendedLifetime(temporary) {} }
        let lock = FileRefreshLock(service: "rules.example", account: "ada", directory: temporary.url.appendingPathComponent("locks"))
        let store = ControlledAuthStore(expired)
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        endpoint.gate.close()
        let first = manager(store, endpoint, lock: lock)
        let second = manager(store, endpoint, lock: lock)

        let a = Task { try await first.validToken() }
        await endpoint.waitForGrants(1)
        // The first holds the lock while its grant is held; the second loads the expired tokens and queues on it.
        let b = Task { try await second.validToken() }
        await store.loadGate.waitUntilArrivals(2)
        endpoint.gate.open()

        #expect(try await a.value == "access-1")
        #expect(try await b.value == "access-1")
        #expect(endpoint.grantCount == 1)
        #expect(store.stored?.refreshToken == "refresh-1")
    }
}
