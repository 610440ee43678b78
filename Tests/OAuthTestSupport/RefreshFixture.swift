import Foundation
import OAuthTestServer
import TestSupport
import Testing
import TokenAuth
import TokenAuthURLSession
import TokenAuthTesting

/// A real OAuth server on loopback, a wall clock the test controls, one real `URLSessionHTTPTransport` shared by the
/// token client and the authorized clients, and helpers to seed sessions and build managers over them. The fixture
/// of every test that refreshes against the real server.
package struct RefreshFixture: Sendable {
    package let server: OAuthTestServer
    package let clock: ManualWallClock
    package let client: OAuthClient
    package let transport: URLSessionHTTPTransport

    /// Runs `body` with a fixture on a new server, and awaits the server's shutdown afterwards, also when `body`
    /// throws.
    package static func with(
        _ configuration: OAuthTestServer.Configuration = .init(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (RefreshFixture) async throws -> Void
    ) async throws {
        try await withServer(configuration) { server in
            try await body(RefreshFixture(
                server: server, clock: ManualWallClock(),
                client: OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: "test-client"),
                transport: URLSessionHTTPTransport()))
        }
    }

    package var refresher: TokenEndpointClient {
        TokenEndpointClient(client: client, transport: transport, wallClock: clock.wallClock)
    }

    /// A session the server really issued, whose access token the client sees as expiring in `expiresIn` seconds
    /// (negative: already expired).
    package func seed(expiresIn: TimeInterval = -10, withRefreshToken: Bool = true) -> Auth {
        let issued = server.issueTokens(clientID: client.clientID, subject: "alice", withRefreshToken: withRefreshToken)
        return Auth(
            accessToken: issued.accessToken, refreshToken: issued.refreshToken,
            expiresAt: clock.now.addingTimeInterval(expiresIn))
    }

    /// A manager over `store` that refreshes through ``refresher``, reads ``clock`` and backs off without jitter.
    package func manager(
        store: any AuthStore,
        configuration: AuthManager.Configuration = .init(backoff: Backoff(jitter: false)),
        lock: (any RefreshLock)? = nil
    ) -> AuthManager {
        AuthManager(
            store: store, refresher: refresher, configuration: configuration, lock: lock, wallClock: clock.wallClock,
            clock: ManualClock(advancingOnSleep: true))
    }

    /// An authorized client over a manager of a store holding `auth` (or nothing), sending through ``transport``
    /// unless told otherwise; and the store.
    package func authorizedClient(
        _ auth: Auth?,
        classifier: TokenRejectionClassifier = .standard,
        transport: (any HTTPTransport)? = nil
    ) -> (AuthorizedClient, InMemoryAuthStore) {
        let store = InMemoryAuthStore(auth)
        let client = AuthorizedClient(
            manager: manager(store: store), transport: transport ?? self.transport, classifier: classifier)
        return (client, store)
    }

    /// The `Authorization` headers the server saw on `/resource` requests, oldest first.
    package var resourceAuthorizations: [String?] {
        server.recordedRequests.filter { $0.uri.hasPrefix("/resource") }.map { $0.header("authorization") }
    }
}

/// Collects a manager's events as they arrive.
package actor EventLog {
    package private(set) var events: [AuthEvent] = []

    package init(_ manager: AuthManager) {
        let stream = manager.events
        Task { await self.follow(stream) }
    }

    private func follow(_ stream: AsyncStream<AuthEvent>) async {
        for await event in stream { events.append(event) }
    }

    /// Waits until `predicate` holds for the events seen so far, and returns them.
    /// - Throws: ``WaitTimedOut`` when it does not hold within `limit`, failing the test.
    @discardableResult
    package func waitFor(
        _ predicate: @Sendable ([AuthEvent]) -> Bool,
        within limit: Duration = .seconds(30)
    ) async throws -> [AuthEvent] {
        try await waitUntil("events matching the predicate", within: limit) { predicate(events) }
        return events
    }
}
