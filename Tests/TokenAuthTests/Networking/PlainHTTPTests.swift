import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import HTTPTypesFoundation
import OAuthTestServer
import OAuthTestSupport
import Testing
@testable import TokenAuth
import TokenAuthTesting

/// The rule that a token never travels over plain HTTP to a host that is not a loopback one, and its opt-out.
///
/// The local OAuth server is on loopback, where plain HTTP is allowed, so the refused requests go to a
/// `CannedTransport` that would answer anything: what is checked is that nothing reaches it. The token endpoint is
/// the real server, so a refresh would show in its counters.
@Suite("AuthorizedClient and plain HTTP")
struct PlainHTTPTests {
    static let insecureURL = URL(string: "http://api.example.com:8080/me?api_key=query-secret")!

    @Test("a request to plain http on another host is refused before a token is taken or anything is sent")
    func refusedBeforeAnything() async throws {
        try await RefreshFixture.with { fixture in
            let auth = fixture.seed(expiresIn: -10)  // expired: a refresh would come first
            let transport = CannedTransport(json: "{}")
            let (client, _) = fixture.authorizedClient(auth, transport: transport)

            let error = await #expect(throws: TokenAuthError.self) {
                try await client.send(HTTPRequest(method: .get, url: Self.insecureURL))
            }

            #expect(error?.code == .insecureURL)
            #expect(error?.isLoginRequired == false)
            let description = error.map { "\($0)" } ?? ""
            #expect(description.contains("http://api.example.com:8080 over plain HTTP"))
            #expect(description.contains("allowsInsecureHTTP"))
            #expect(!description.contains("query-secret") && !description.contains(auth.accessToken))
            #expect(transport.sendCount == 0)
            #expect(fixture.server.stats.tokenRequests == 0)
            #expect(client.allowsInsecureHTTP == false)
        }
    }

    @Test("https, and plain http to loopback hosts, are sent; a request that needs no token is never checked",
          arguments: ["https://api.example.com/me", "http://localhost:9/me", "http://127.0.0.2/me", "http://[::1]:9/me"])
    func allowedURLs(url: String) async throws {
        try await RefreshFixture.with { fixture in
            let auth = fixture.seed(expiresIn: 3600)
            let transport = CannedTransport(json: "{}")
            let (client, _) = fixture.authorizedClient(auth, transport: transport)

            let (response, _) = try await client.send(HTTPRequest(method: .get, url: URL(string: url)!))
            _ = try await client.send(HTTPRequest(method: .get, url: Self.insecureURL), requiresAuthentication: false)

            #expect(response.status == .ok)
            #expect(transport.sendCount == 2)
        }
    }

    @Test("allowsInsecureHTTP sends the token over plain http, for development")
    func optOut() async throws {
        try await RefreshFixture.with { fixture in
            let auth = fixture.seed(expiresIn: 3600)
            let transport = CannedTransport(json: "{}")
            let client = AuthorizedClient(
                manager: fixture.manager(store: InMemoryAuthStore(auth)), transport: transport, allowsInsecureHTTP: true)

            let (response, _) = try await client.send(HTTPRequest(method: .get, url: Self.insecureURL))

            #expect(response.status == .ok)
            #expect(client.allowsInsecureHTTP)
            #expect(transport.lastRequest?.headerFields[.authorization] == "Bearer \(auth.accessToken)")
        }
    }

    @Test("the callback API refuses the same way, before waiting for a token")
    func callbackAPI() async throws {
        try await RefreshFixture.with { fixture in
            let transport = CannedTransport(json: "{}")
            let (client, _) = fixture.authorizedClient(fixture.seed(expiresIn: -10), transport: transport)

            let result = await withCheckedContinuation { continuation in
                client.send(HTTPRequest(method: .get, url: Self.insecureURL), queue: .global()) { continuation.resume(returning: $0) }
            }

            guard case .failure(let error) = result else {
                Issue.record("the request succeeded")
                return
            }
            #expect((error as? TokenAuthError)?.code == .insecureURL)
            #expect(transport.sendCount == 0)
            #expect(fixture.server.stats.tokenRequests == 0)
        }
    }
}
