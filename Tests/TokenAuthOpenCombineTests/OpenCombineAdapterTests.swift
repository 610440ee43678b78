// Built with the package trait OpenCombine (see Package.swift): without it this module is empty, and an app
// that does not ask for it resolves no OpenCombine.
#if OpenCombine
import Foundation
import Synchronization
import HTTPTypes
import HTTPTypesFoundation
import OAuthTestServer
import OAuthTestSupport
@preconcurrency import OpenCombine
import Testing
import TokenAuth
import TokenAuthOpenCombine

/// A session on a real OAuth server (``RefreshFixture``), and an authorized client over it.
private struct Fixture {
    let server: OAuthTestServer
    let store: InMemoryAuthStore
    let client: AuthorizedClient

    /// Runs `body` with a session the server issued, which the client sees as expiring in `expiresIn` seconds; the
    /// server is shut down afterwards, also when `body` throws.
    static func with(expiresIn: TimeInterval, _ body: (Fixture) async throws -> Void) async throws {
        try await RefreshFixture.with { base in
            let (client, store) = base.authorizedClient(base.seed(expiresIn: expiresIn))
            try await body(Fixture(server: base.server, store: store, client: client))
        }
    }
}

/// The first value `publisher` publishes, or its failure; ``NoValue`` when it finishes without one, and
/// `CancellationError` when the test is cancelled first (as by its time limit).
private func firstValue<Output: Sendable>(of publisher: AnyPublisher<Output, any Error>) async throws -> Output {
    let pending = Pending<Output>()
    var subscription: AnyCancellable?
    defer { withExtendedLifetime(subscription) {} }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            pending.attach(continuation)
            subscription = publisher.sink(
                receiveCompletion: { completion in
                    let error: any Error = if case .failure(let error) = completion { error } else { NoValue() }
                    pending.resume(with: .failure(error))
                },
                receiveValue: { pending.resume(with: .success($0)) })
        }
    } onCancel: {
        pending.resume(with: .failure(CancellationError()))
    }
}

/// The publisher finished without publishing a value.
private struct NoValue: Error {}

/// A continuation that the first of several outcomes resumes; later ones are dropped. An outcome that comes
/// before the continuation (a cancellation) resumes it as soon as it is given.
private final class Pending<Output: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Output, any Error>?
        var early: Result<Output, any Error>?
        var resumed = false
    }

    private let state = Mutex(State())

    func attach(_ continuation: CheckedContinuation<Output, any Error>) {
        let early = state.withLock { state -> Result<Output, any Error>? in
            guard let early = state.early else {
                state.continuation = continuation
                return nil
            }
            state.resumed = true
            return early
        }
        if let early { continuation.resume(with: early) }
    }

    func resume(with result: Result<Output, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Output, any Error>? in
            guard !state.resumed else { return nil }
            guard let continuation = state.continuation else {
                if state.early == nil { state.early = result }
                return nil
            }
            state.resumed = true
            return continuation
        }
        continuation?.resume(with: result)
    }
}

@Suite("OpenCombine adapter", .timeLimit(.minutes(1)))
struct OpenCombineAdapterTests {
    @Test("firstValue fails for a publisher that finishes without a value, instead of waiting for ever")
    func firstValueOfEmptyPublisher() async throws {
        await #expect(throws: NoValue.self) { try await firstValue(of: Empty<Int, any Error>().eraseToAnyPublisher()) }
        #expect(try await firstValue(of: [1, 2].publisher.setFailureType(to: (any Error).self).eraseToAnyPublisher()) == 1)
    }

    @Test("sendPublisher: a revoked token gets a 401, one refresh, and the retried request succeeds")
    func refreshAndRetry() async throws {
        try await Fixture.with(expiresIn: 3600) { fixture in
            let old = try #require(fixture.store.current)
            fixture.server.revokeAllAccessTokens()

            let (response, _) = try await firstValue(
                of: fixture.client.sendPublisher(HTTPRequest(method: .get, url: fixture.server.resourceURL)))

            #expect(response.status == .ok)
            #expect(fixture.server.stats.refreshGrants == 1)
            #expect(fixture.server.stats.responses(withStatus: 401) == 1)
            #expect(fixture.store.current?.accessToken != old.accessToken)
        }
    }

    @Test("sendPublisher: a request to plain http on another host fails with insecureURL and is never sent")
    func plainHTTPIsRefused() async throws {
        try await Fixture.with(expiresIn: 3600) { fixture in
            let url = URL(string: "http://127.0.0.1.example.com:\(fixture.server.port)/resource")!

            do {
                _ = try await firstValue(of: fixture.client.sendPublisher(HTTPRequest(method: .get, url: url)))
                Issue.record("the request was sent")
            } catch let error as TokenAuthError {
                #expect(error.code == .insecureURL)
            }
            #expect(fixture.server.stats.resourceRequests == 0)
        }
    }

    @Test("validTokenPublisher: many subscribers over an expired token share one refresh")
    func publishersShareOneRefresh() async throws {
        try await Fixture.with(expiresIn: -10) { fixture in
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
    }

    @Test("validTokenPublisher(forceRefresh: true) replaces a token that is still valid")
    func forceRefresh() async throws {
        try await Fixture.with(expiresIn: 3600) { fixture in
            let old = try #require(fixture.store.current)

            let token = try await firstValue(of: fixture.client.manager.validTokenPublisher(forceRefresh: true))

            #expect(token != old.accessToken)
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }
}
#endif  // OpenCombine
