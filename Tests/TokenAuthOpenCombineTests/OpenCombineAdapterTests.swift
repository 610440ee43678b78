import Foundation
import HTTPTypes
import HTTPTypesFoundation
import OAuthTestServer
@preconcurrency import OpenCombine
import Testing
import TokenAuth
import TokenAuthOpenCombine

/// A real OAuth server on loopback and a manager and client over one real `URLSessionTransport`.
private struct Fixture {
    let server: OAuthTestServer
    let store: InMemoryAuthStore
    let client: AuthorizedClient

    /// A session the server issued, which the client sees as expiring in `expiresIn` seconds.
    static func start(expiresIn: TimeInterval) async throws -> Fixture {
        let server = try await OAuthTestServer.start()
        let issued = server.issueTokens(clientID: "test-client", subject: "alice")
        let store = InMemoryAuthStore(Auth(
            accessToken: issued.accessToken, refreshToken: issued.refreshToken,
            expiresAt: Date().addingTimeInterval(expiresIn)))
        let transport = URLSessionTransport()
        let refresher = TokenEndpointClient(
            client: OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: "test-client"), transport: transport)
        let manager = AuthManager(store: store, refresher: refresher)
        return Fixture(server: server, store: store, client: AuthorizedClient(manager: manager, transport: transport))
    }
}

/// The one value `publisher` publishes (or its failure).
private func firstValue<Output: Sendable>(of publisher: AnyPublisher<Output, any Error>) async throws -> Output {
    var subscription: AnyCancellable?
    defer { withExtendedLifetime(subscription) {} }
    return try await withCheckedThrowingContinuation { continuation in
        subscription = publisher.sink(
            receiveCompletion: { completion in
                if case .failure(let error) = completion { continuation.resume(throwing: error) }
            },
            receiveValue: { continuation.resume(returning: $0) })
    }
}

@Suite("OpenCombine adapter")
struct OpenCombineAdapterTests {
    @Test("sendPublisher: a revoked token gets a 401, one refresh, and the retried request succeeds")
    func refreshAndRetry() async throws {
        let fixture = try await Fixture.start(expiresIn: 3600)
        defer { Task { await fixture.server.shutdown() } }
        let old = try #require(fixture.store.current)
        fixture.server.revokeAllAccessTokens()

        let (response, _) = try await firstValue(
            of: fixture.client.sendPublisher(HTTPRequest(method: .get, url: fixture.server.resourceURL)))

        #expect(response.status == .ok)
        #expect(fixture.server.stats.refreshGrants == 1)
        #expect(fixture.server.stats.responses(withStatus: 401) == 1)
        #expect(fixture.store.current?.accessToken != old.accessToken)
    }

    @Test("sendPublisher: a request to plain http on another host fails with insecureURL and is never sent")
    func plainHTTPIsRefused() async throws {
        let fixture = try await Fixture.start(expiresIn: 3600)
        defer { Task { await fixture.server.shutdown() } }
        let url = URL(string: "http://127.0.0.1.example.com:\(fixture.server.port)/resource")!

        do {
            _ = try await firstValue(of: fixture.client.sendPublisher(HTTPRequest(method: .get, url: url)))
            Issue.record("the request was sent")
        } catch let error as AuthorizedClientError {
            #expect(error.code == .insecureURL)
        }
        #expect(fixture.server.stats.resourceRequests == 0)
    }

    @Test("validTokenPublisher: many subscribers over an expired token share one refresh")
    func publishersShareOneRefresh() async throws {
        let fixture = try await Fixture.start(expiresIn: -10)
        defer { Task { await fixture.server.shutdown() } }
        let manager = fixture.client.manager

        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask { try await firstValue(of: manager.validTokenPublisher()) }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }

        #expect(tokens == [fixture.store.current?.accessToken])
        #expect(fixture.server.stats.refreshGrants == 1)
    }

    @Test("validTokenPublisher(forceRefresh: true) replaces a token that is still valid")
    func forceRefresh() async throws {
        let fixture = try await Fixture.start(expiresIn: 3600)
        defer { Task { await fixture.server.shutdown() } }
        let old = try #require(fixture.store.current)

        let token = try await firstValue(of: fixture.client.manager.validTokenPublisher(forceRefresh: true))

        #expect(token != old.accessToken)
        #expect(fixture.server.stats.refreshGrants == 1)
    }
}
