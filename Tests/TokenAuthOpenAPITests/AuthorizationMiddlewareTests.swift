// Built with the package trait OpenAPI (see Package.swift): without it this module is empty, and an app
// that does not ask for it resolves no swift-openapi-runtime.
#if OpenAPI
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import OAuthTestServer
import OpenAPIRuntime
import Synchronization
import Testing
import TokenAuth
import TokenAuthDPoP
import TokenAuthOpenAPI
import OAuthTestSupport

/// A manager over a session on a real OAuth server (``RefreshFixture``), and the `next` step of a generated client's
/// middleware chain sending through the fixture's transport.
private final class Fixture: Sendable {
    let base: RefreshFixture
    let store: InMemoryAuthStore
    let manager: AuthManager
    private let sent = Mutex(0)

    var server: OAuthTestServer { base.server }

    private init(base: RefreshFixture, store: InMemoryAuthStore) {
        self.base = base
        self.store = store
        self.manager = base.manager(store: store)
    }

    /// Runs `body` with a session the server issued, which the client sees as expiring in `expiresIn` seconds; the
    /// server is shut down afterwards, also when `body` throws.
    static func with(
        _ configuration: OAuthTestServer.Configuration = .init(), expiresIn: TimeInterval,
        _ body: (Fixture) async throws -> Void
    ) async throws {
        try await RefreshFixture.with(configuration) { base in
            try await body(Fixture(base: base, store: InMemoryAuthStore(base.seed(expiresIn: expiresIn))))
        }
    }

    /// Runs `body` with a session bound to a new software key (DPoP) at a server that requires DPoP of the client
    /// and demands nonces, and the `DPoP` that signs for the key.
    static func withDPoP(_ body: (Fixture, DPoP) async throws -> Void) async throws {
        var configuration = OAuthTestServer.Configuration(clients: [.init(id: "test-client", requiresDPoP: true)])
        configuration.advertisesDPoP = true
        configuration.dpopNonces = true
        try await RefreshFixture.with(configuration) { base in
            let dpop = DPoP(keys: SoftwareProofKeys())
            let key = try await dpop.keys.makeKey()
            let issued = base.server.issueTokens(clientID: base.client.clientID, subject: "alice", dpopThumbprint: key.thumbprint)
            let auth = Auth(
                accessToken: issued.accessToken, tokenType: "DPoP", refreshToken: issued.refreshToken,
                expiresAt: base.clock.now.addingTimeInterval(3600), proofKey: key)
            try await body(Fixture(base: base, store: InMemoryAuthStore(auth)), dpop)
        }
    }

    /// How many times `next` was called.
    var sendCount: Int { sent.withLock { $0 } }

    /// Runs `request` (its path relative to the server) through `middleware`, as a generated client would.
    func call(
        _ middleware: AuthorizationMiddleware, _ request: HTTPRequest, body: HTTPBody? = nil
    ) async throws -> (HTTPResponse, Data) {
        let transport = base.transport
        let (response, responseBody) = try await middleware.intercept(
            request, body: body, baseURL: server.baseURL, operationID: "test"
        ) { request, body, baseURL in
            sent.withLock { $0 += 1 }
            var absolute = request
            absolute.scheme = baseURL.scheme
            absolute.authority = baseURL.host.map { "\($0):\(baseURL.port ?? 80)" }
            var data: Data?
            if let body { data = try await Data(collecting: body, upTo: 1 << 20) }
            let (response, responseData) = try await transport.send(absolute, body: data)
            return (response, HTTPBody(responseData))
        }
        guard let responseBody else { return (response, Data()) }
        return (response, try await Data(collecting: responseBody, upTo: 1 << 20))
    }
}

/// A body that can be read only once, like a streamed upload.
private func singleUseBody(_ data: Data) -> HTTPBody {
    let chunks = AsyncStream<HTTPBody.ByteChunk> { continuation in
        continuation.yield(ArraySlice(data.prefix(100)))
        continuation.yield(ArraySlice(data.dropFirst(100)))
        continuation.finish()
    }
    return HTTPBody(chunks, length: .unknown, iterationBehavior: .single)
}

@Suite("OpenAPI ClientMiddleware")
struct AuthorizationMiddlewareTests {
    @Test("a revoked token gets a 401, one refresh, and the retry succeeds with the same single-use body")
    func refreshAndRetry() async throws {
        try await Fixture.with(expiresIn: 3600) { fixture in
            let old = try #require(fixture.store.current)
            fixture.server.revokeAllAccessTokens()
            let payload = Data((0..<300).map { UInt8($0 % 256) })
            let request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/resource/upload")

            let (response, data) = try await fixture.call(
                AuthorizationMiddleware(manager: fixture.manager), request, body: singleUseBody(payload))

            #expect(response.status == .ok)
            let echo = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect((echo["body_base64"] as? String).flatMap { Data(base64Encoded: $0) } == payload)
            #expect(fixture.sendCount == 2)
            #expect(fixture.server.stats.refreshGrants == 1)
            let current = try #require(fixture.store.current)
            #expect(current.accessToken != old.accessToken)
            #expect(fixture.server.recordedRequests.compactMap { $0.header("authorization") }
                == ["Bearer \(old.accessToken)", "Bearer \(current.accessToken)"])
        }
    }

    @Test("a token rejected again after the refresh throws unauthorized, after exactly one refresh")
    func secondRejection() async throws {
        try await Fixture.with(.init(accessTokenLifetime: .zero), expiresIn: 3600) { fixture in
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/resource")

            let error = await #expect(throws: TokenAuthError.self) {
                try await fixture.call(AuthorizationMiddleware(manager: fixture.manager), request)
            }

            #expect(error?.code == .unauthorized)
            #expect(error?.challenge?.error == "invalid_token")
            #expect(fixture.sendCount == 2)
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }

    @Test("a DPoP session: a proof whose htu is the operation's URL under baseURL; a nonce asked for is sent once more")
    func dpop() async throws {
        try await Fixture.withDPoP { fixture, dpop in
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/resource?page=2")
            let middleware = AuthorizationMiddleware(manager: fixture.manager, dpop: dpop)
            let (response, _) = try await fixture.call(middleware, request)
            #expect(response.status == .ok)
            #expect(fixture.sendCount == 2, "the first without a nonce, which the resource asked for")
            #expect(fixture.server.stats.dpopNonceChallenges == 1)
            #expect(fixture.server.stats.dpopProofRefusals == 0)
            #expect(fixture.server.recordedRequests.last?.header("authorization")?.hasPrefix("DPoP ") == true)
            // The nonce is kept: the next operation is sent once.
            #expect(try await fixture.call(middleware, request).0.status == .ok)
            #expect(fixture.sendCount == 3)
            #expect(fixture.server.stats.refreshGrants == 0)

            // Without a DPoP (none given, none in the manager's configuration): refused before anything is sent.
            let error = await #expect(throws: TokenAuthError.self) {
                _ = try await fixture.call(AuthorizationMiddleware(manager: fixture.manager), request)
            }
            #expect(error?.code == .proofKeyUnavailable)
            #expect(fixture.sendCount == 3)
        }
    }

    @Test("403 insufficient_scope goes back to the generated client without a refresh")
    func insufficientScopePassesThrough() async throws {
        try await Fixture.with(expiresIn: 3600) { fixture in
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/resource/admin")

            let (response, data) = try await fixture.call(AuthorizationMiddleware(manager: fixture.manager), request)

            #expect(response.status == .forbidden)
            #expect(String(decoding: data, as: UTF8.self).contains("insufficient_scope"))
            #expect(fixture.sendCount == 1)
            #expect(fixture.server.stats.tokenRequests == 0)
        }
    }

    @Test("operations marked unauthenticated are sent without a token, even without a session")
    func unauthenticatedOperation() async throws {
        try await Fixture.with(expiresIn: 3600) { fixture in
            try await fixture.manager.signOut()
            let middleware = AuthorizationMiddleware(manager: fixture.manager, unauthenticatedOperations: ["test"])

            let (response, _) = try await fixture.call(
                middleware, HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/public"))

            #expect(response.status == .ok)
            #expect(fixture.server.recordedRequests.first?.header("authorization") == nil)
        }
    }

    @Test("a plain-http baseURL to another host is refused before a token is taken; allowsInsecureHTTP lifts it")
    func plainHTTPBaseURL() async throws {
        try await Fixture.with(expiresIn: -10) { fixture in  // expired: a refresh would come first
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/me")
            let baseURL = URL(string: "http://api.example.com/v1")!
            let sent = Mutex<[String?]>([])
            let next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?) = { request, _, _ in
                sent.withLock { $0.append(request.headerFields[.authorization]) }
                return (HTTPResponse(status: .ok), nil)
            }

            let error = await #expect(throws: TokenAuthError.self) {
                try await AuthorizationMiddleware(manager: fixture.manager)
                    .intercept(request, body: nil, baseURL: baseURL, operationID: "getMe", next: next)
            }
            #expect(error?.code == .insecureURL)
            #expect(sent.withLock { $0 }.isEmpty)
            #expect(fixture.server.stats.tokenRequests == 0)

            let (response, _) = try await AuthorizationMiddleware(manager: fixture.manager, allowsInsecureHTTP: true)
                .intercept(request, body: nil, baseURL: baseURL, operationID: "getMe", next: next)
            #expect(response.status == .ok)
            #expect(sent.withLock { $0 } == ["Bearer \(try #require(fixture.store.current).accessToken)"])
        }
    }
}
#endif  // OpenAPI
