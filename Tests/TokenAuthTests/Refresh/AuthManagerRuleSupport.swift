import Foundation
import Synchronization
import Testing
import TokenAuth
import TokenAuthTesting

/// What the suites of AuthManager's rules share: every rule proven with the doubles of TokenAuthTesting — counted
/// grants, held answers and held writes instead of timing, a manual wall clock instead of sleeping, and no keyring.
protocol AuthManagerRules {
    var clock: ManualWallClock { get }
}

extension AuthManagerRules {
    /// A session whose access token expired ten seconds ago.
    var expired: Auth { Auth(accessToken: "access-0", refreshToken: "refresh-0", expiresAt: clock.now.addingTimeInterval(-10)) }

    func manager(
        _ store: ControlledAuthStore,
        _ endpoint: ScriptedTokenEndpoint,
        lock: (any RefreshLock)? = nil,
        configuration: AuthManager.Configuration = .init(backoff: Backoff(jitter: false))
    ) -> AuthManager {
        AuthManager(
            store: store, refresher: endpoint, configuration: configuration, lock: lock, wallClock: clock.wallClock,
            clock: ManualClock(advancingOnSleep: true))
    }

    /// A store holding ``expired``, an endpoint answering `access-1`, `access-2`…, and a manager over both.
    func parts(
        configuration: AuthManager.Configuration = .init(backoff: Backoff(jitter: false))
    ) -> (ControlledAuthStore, ScriptedTokenEndpoint, AuthManager) {
        let store = ControlledAuthStore(expired)
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        return (store, endpoint, manager(store, endpoint, configuration: configuration))
    }
}


/// `task`'s result, or `nil` (and a test failure) when it has none within `limit`: a wait that fails, never hangs.
func result<T: Sendable>(
    of task: Task<T, any Error>,
    within limit: Duration,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> Result<T, any Error>? {
    let first = Mutex<CheckedContinuation<Result<T, any Error>?, Never>?>(nil)
    let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>?, Never>) in
        first.withLock { $0 = continuation }
        let finish: @Sendable (Result<T, any Error>?) -> Void = { value in
            first.withLock { $0.take() }?.resume(returning: value)
        }
        Task { finish(await task.result) }
        Task {
            try? await Task.sleep(for: limit)
            finish(nil)
        }
    }
    if outcome == nil { Issue.record("the task had no result within \(limit)", sourceLocation: sourceLocation) }
    return outcome
}

/// A revoker that counts what it is asked to revoke.
final class CountingRevoker: TokenRevoker {
    private let revoked = Mutex(0)
    var count: Int { revoked.withLock { $0 } }
    func revoke(_ token: String, hint: TokenRevocationClient.TokenTypeHint?) async throws {
        revoked.withLock { $0 += 1 }
    }
}
