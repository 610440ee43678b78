import Foundation
import Synchronization
import TokenAuth

/// A token endpoint in memory, for testing code that refreshes: it counts every grant, answers with fresh tokens
/// (or with what the test scripted), and can hold its answers until the test releases them.
///
/// ```swift
/// let clock = ManualWallClock()
/// let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
/// let manager = AuthManager(store: InMemoryAuthStore(expired), refresher: endpoint, wallClock: clock.wallClock)
/// _ = try await manager.validToken()
/// #expect(endpoint.grantCount == 1)
/// ```
///
/// By default, grant number *n* answers `access-n` and, for a refresh, rotates to `refresh-n`, expiring
/// ``lifetime`` after the wall clock's time (and issued at that time). ``enqueue(_:)`` scripts the next answers, errors included; the
/// ``gate`` holds every answer while it is closed.
public final class ScriptedTokenEndpoint: TokenRefresher {
    /// One grant the endpoint received.
    public enum Grant: Sendable, Equatable {
        /// A refresh (RFC 6749 §6) with this refresh token.
        case refresh(refreshToken: String, scope: String?)
        /// A client credentials grant (RFC 6749 §4.4).
        case clientCredentials(scope: String?)
    }

    private struct State {
        var grants: [Grant] = []
        var script: [Result<TokenResponse, any Error>] = []
        var answered = 0
    }

    private let state = Mutex(State())
    private let wallClock: WallClock
    /// How long the default answers' access tokens live.
    public let lifetime: TimeInterval
    /// Whether the default answers to a refresh carry a new refresh token.
    public let rotatesRefreshTokens: Bool
    /// Holds every answer while closed; grants are counted when they arrive, before the gate.
    public let gate = Gate()

    /// Creates an endpoint whose default answers expire `lifetime` seconds after `wallClock`'s time.
    public init(wallClock: @escaping WallClock, lifetime: TimeInterval = 3600, rotatesRefreshTokens: Bool = true) {
        self.wallClock = wallClock
        self.lifetime = lifetime
        self.rotatesRefreshTokens = rotatesRefreshTokens
    }

    /// Every grant received, in order of arrival.
    public var grants: [Grant] { state.withLock { $0.grants } }

    /// How many grants were received.
    public var grantCount: Int { state.withLock { $0.grants.count } }

    /// How many grants were answered (passed the gate), with tokens or an error.
    public var answerCount: Int { state.withLock { $0.answered } }

    /// Scripts the next answer; answers are used in the order enqueued, before any default answer.
    public func enqueue(_ answer: Result<TokenResponse, any Error>) {
        state.withLock { $0.script.append(answer) }
    }

    /// Scripts the next answer to be `error`, e.g. `TokenAuthError.invalidGrant`.
    public func fail(with error: any Error) {
        enqueue(.failure(error))
    }

    /// Waits until `count` grants in all have arrived (held ones included).
    public func waitForGrants(_ count: Int) async {
        await gate.waitUntilArrivals(count)
    }

    public func refresh(refreshToken: String, scope: String?) async throws -> TokenResponse {
        try await answer(.refresh(refreshToken: refreshToken, scope: scope))
    }

    public func clientCredentials(scope: String?) async throws -> TokenResponse {
        try await answer(.clientCredentials(scope: scope))
    }

    private func answer(_ grant: Grant) async throws -> TokenResponse {
        let number = state.withLock { state -> Int in
            state.grants.append(grant)
            return state.grants.count
        }
        try await gate.pass()
        let scripted = state.withLock { state -> Result<TokenResponse, any Error>? in
            state.answered += 1
            return state.script.isEmpty ? nil : state.script.removeFirst()
        }
        if let scripted { return try scripted.get() }
        var refreshToken: String?
        if case .refresh = grant, rotatesRefreshTokens { refreshToken = "refresh-\(number)" }
        let now = wallClock()
        return TokenResponse(
            accessToken: "access-\(number)", refreshToken: refreshToken,
            expiresAt: now.addingTimeInterval(lifetime), issuedAt: now)
    }
}
