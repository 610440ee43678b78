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

@Suite("AuthorizedClient against a real OAuth server and URLSession")
struct AuthorizedClientTests {
    @Test("an authorized request carries the stored token as a Bearer header and needs no refresh")
    func happyPath() async throws {
        try await RefreshFixture.with { fixture in
            let auth = fixture.seed(expiresIn: 3600)
            let (client, _) = fixture.authorizedClient(auth)

            let echo = try await client.load(Echo.self, from: fixture.server.url("/resource/items?page=2"), decoder: .snakeCase)

            #expect(echo.method == "GET")
            #expect(echo.path == "/resource/items")
            #expect(echo.tokenSubject == "alice")
            #expect(fixture.resourceAuthorizations == ["Bearer \(auth.accessToken)"])
            #expect(fixture.server.stats.tokenRequests == 0)
        }
    }

    @Test("a request that needs no authentication is sent untouched, even without a session")
    func unauthenticatedPassThrough() async throws {
        try await RefreshFixture.with { fixture in
            let (client, _) = fixture.authorizedClient(nil)
            let request = HTTPRequest(method: .get, url: fixture.server.publicURL, headerFields: [.accept: "application/json"])

            let (response, data) = try await client.send(request, requiresAuthentication: false)

            #expect(response.status == .ok)
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(json["authorization_present"] as? Bool == false)
            #expect(fixture.server.recordedRequests.last?.header("accept") == "application/json")
            #expect(fixture.server.stats.tokenRequests == 0)
        }
    }

    @Test("without a session the request fails with loginRequired and nothing is sent")
    func loginRequired() async throws {
        try await RefreshFixture.with { fixture in
            let (client, _) = fixture.authorizedClient(nil)

            let error = await #expect(throws: TokenAuthError.self) {
                try await client.send(HTTPRequest(method: .get, url: fixture.server.resourceURL))
            }

            #expect(error?.isLoginRequired == true)
            #expect(error?.code == .noCredentials)
            #expect(fixture.server.stats.resourceRequests == 0)
        }
    }

    @Test("a token about to expire is refreshed before the request leaves, which then carries the new token")
    func proactiveRefresh() async throws {
        try await RefreshFixture.with { fixture in
            let auth = fixture.seed(expiresIn: 4)  // inside the 60 s leeway and the 5 s minimum validity
            let (client, store) = fixture.authorizedClient(auth)

            let (response, _) = try await client.send(HTTPRequest(method: .get, url: fixture.server.resourceURL))

            #expect(response.status == .ok)
            let refreshed = try #require(store.current)
            #expect(refreshed.accessToken != auth.accessToken)
            #expect(fixture.resourceAuthorizations == ["Bearer \(refreshed.accessToken)"])
            #expect(fixture.server.stats.refreshGrants == 1)
            #expect(fixture.server.stats.responses(withStatus: 401) == 0)
        }
    }

    @Test("200 concurrent requests over an expired token cause exactly one refresh, and all 200 succeed")
    func concurrentRequestsShareOneRefresh() async throws {
        try await RefreshFixture.with { fixture in
            let (client, _) = fixture.authorizedClient(fixture.seed(expiresIn: -10))
            let url = fixture.server.resourceURL

            let successes = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<200 {
                    group.addTask { try await client.send(HTTPRequest(method: .get, url: url)).0.status.code }
                }
                return try await group.reduce(0) { $0 + ($1 == 200 ? 1 : 0) }
            }

            #expect(successes == 200)
            #expect(fixture.server.stats.refreshGrants == 1)
            #expect(fixture.server.stats.resourceRequests == 200)
            #expect(fixture.server.stats.responses(withStatus: 401) == 0)
        }
    }

    @Test("a token revoked at the server gets a 401, one refresh, and the retry succeeds")
    func revokedTokenIsRefreshedAndRetried() async throws {
        try await RefreshFixture.with { fixture in
            let auth = fixture.seed(expiresIn: 3600)
            let (client, store) = fixture.authorizedClient(auth)
            fixture.server.revokeAllAccessTokens()

            let (response, _) = try await client.send(HTTPRequest(method: .get, url: fixture.server.resourceURL))

            #expect(response.status == .ok)
            #expect(fixture.server.stats.refreshGrants == 1)
            #expect(fixture.server.stats.responses(withStatus: 401) == 1)
            let current = try #require(store.current)
            #expect(fixture.resourceAuthorizations == ["Bearer \(auth.accessToken)", "Bearer \(current.accessToken)"])
        }
    }

    @Test("a token rejected again after the refresh throws unauthorized with the challenge and body, after one refresh")
    func secondRejectionThrowsUnauthorized() async throws {
        // Every access token this server issues is expired on arrival, the refreshed one included.
        try await RefreshFixture.with(.init(accessTokenLifetime: .zero)) { fixture in
            let (client, _) = fixture.authorizedClient(fixture.seed(expiresIn: 3600))

            let error = await #expect(throws: TokenAuthError.self) {
                try await client.send(HTTPRequest(method: .get, url: fixture.server.resourceURL))
            }

            #expect(error?.code == .unauthorized)
            #expect(error?.statusCode == 401)
            #expect(error?.challenge?.hasScheme("Bearer") == true)
            #expect(error?.challenge?.error == "invalid_token")
            #expect(error?.challenge?.errorDescription == "The access token expired.")
            let body = try #require(error?.body)
            #expect(String(decoding: body, as: UTF8.self).contains("invalid_token"))
            #expect(fixture.server.stats.refreshGrants == 1)
            #expect(fixture.server.stats.resourceRequests == 2)
        }
    }

    @Test("a 401 for a token that was already replaced is retried with the current token, without another refresh")
    func staleTokenRejectionDoesNotRefresh() async throws {
        try await RefreshFixture.with { fixture in
            let old = fixture.seed(expiresIn: 3600)
            let (client, store) = fixture.authorizedClient(old)
            fixture.server.revokeAllAccessTokens()
            let request = HTTPRequest(method: .get, url: fixture.server.resourceURL)

            // The first request is rejected and refreshes; the second left with the same old token.
            _ = try await client.exchange.send(request, body: nil, through: client.transport, authorizedWith: old)
            let (response, _) = try await client.exchange.send(request, body: nil, through: client.transport, authorizedWith: old)

            #expect(response.status == .ok)
            #expect(fixture.server.stats.refreshGrants == 1)
            let current = try #require(store.current)
            #expect(fixture.resourceAuthorizations == [old, current, old, current].map { "Bearer \($0.accessToken)" })
        }
    }

    @Test("concurrent requests that all carry a revoked token share one refresh, and all succeed")
    func concurrentRejectionsShareOneRefresh() async throws {
        try await RefreshFixture.with { fixture in
            let (client, _) = fixture.authorizedClient(fixture.seed(expiresIn: 3600))
            fixture.server.revokeAllAccessTokens()
            let url = fixture.server.resourceURL

            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await client.send(HTTPRequest(method: .get, url: url)).0.status.code }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }

            #expect(statuses == Array(repeating: 200, count: 20))
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }

    @Test("the body of a retried POST or PUT arrives again byte for byte", arguments: [HTTPRequest.Method.post, .put])
    func bodyReplayedAfter401(method: HTTPRequest.Method) async throws {
        try await RefreshFixture.with { fixture in
            let (client, _) = fixture.authorizedClient(fixture.seed(expiresIn: 3600))
            fixture.server.revokeAllAccessTokens()
            let body = Data((0...255).map { UInt8($0) } + Array("héllo, wörld".utf8))
            let request = HTTPRequest(
                method: method, url: fixture.server.url("/resource/upload"),
                headerFields: [.contentType: "application/octet-stream"])

            let echo = try await client.load(Echo.self, for: request, body: body, decoder: .snakeCase)

            #expect(echo.method == method.rawValue)
            #expect(Data(base64Encoded: echo.bodyBase64) == body)
            #expect(fixture.server.stats.responses(withStatus: 401) == 1)
            #expect(fixture.server.stats.resourceRequests == 2)
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }

    @Test("403 insufficient_scope is a permission error and causes no refresh")
    func insufficientScope() async throws {
        try await RefreshFixture.with { fixture in
            let (client, _) = fixture.authorizedClient(fixture.seed(expiresIn: 3600))

            let error = await #expect(throws: TokenAuthError.self) {
                try await client.send(HTTPRequest(method: .get, url: fixture.server.adminResourceURL))
            }

            #expect(error?.code == .insufficientScope)
            #expect(error?.statusCode == 403)
            #expect(error?.challenge?.scope == "admin")
            #expect(fixture.server.stats.tokenRequests == 0)
            #expect(fixture.server.stats.resourceRequests == 1)
        }
    }

    @Test("a redirect to another loopback port does not carry Authorization; one within the origin keeps it")
    func redirectsKeepTheTokenOnItsOrigin() async throws {
        try await RefreshFixture.with { fixture in
            try await withServer { other in
                let auth = fixture.seed(expiresIn: 3600)
                let (client, _) = fixture.authorizedClient(auth)
                #expect(other.port != fixture.server.port)

                let (crossOrigin, data) = try await client.send(
                    HTTPRequest(method: .get, url: fixture.server.redirectURL(to: other.publicURL)))
                let (sameOrigin, _) = try await client.send(
                    HTTPRequest(method: .get, url: fixture.server.redirectURL(to: fixture.server.resourceURL)))

                #expect(crossOrigin.status == .ok)
                let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                #expect(json["authorization_present"] as? Bool == false)
                let seenByOther = other.recordedRequests
                #expect(seenByOther.map(\.uri) == ["/public"])
                #expect(seenByOther.allSatisfy { $0.header("authorization") == nil })
                // The first hop, on the token's own origin, did carry it; so did the same-origin redirect's target.
                #expect(fixture.server.recordedRequests.first?.header("authorization") == "Bearer \(auth.accessToken)")
                #expect(sameOrigin.status == .ok)
                #expect(fixture.resourceAuthorizations == ["Bearer \(auth.accessToken)"])
            }
        }
    }

    @Test("a request cancelled while waiting for a shared refresh stops at once; the refresh goes on for the others")
    func cancellationDuringSharedRefresh() async throws {
        try await RefreshFixture.with { fixture in
            let (client, store) = fixture.authorizedClient(fixture.seed(expiresIn: -10))
            fixture.server.holdTokenAnswers()
            let url = fixture.server.resourceURL

            let cancelled = Task { try await client.send(HTTPRequest(method: .get, url: url)) }
            try await fixture.server.waitForHeldTokenRequests(1)
            let other = Task { try await client.send(HTTPRequest(method: .get, url: url)) }
            cancelled.cancel()

            await #expect(throws: CancellationError.self) { try await cancelled.value }
            // Promptly: the refresh it was waiting for has not even been answered yet.
            #expect(fixture.server.stats.successfulRefreshes == 0)
            fixture.server.releaseTokenAnswers()
            #expect(try await other.value.0.status == .ok)
            #expect(fixture.server.stats.refreshGrants == 1)
            #expect(fixture.server.stats.successfulRefreshes == 1)
            #expect(fixture.server.stats.resourceRequests == 1)
            #expect(store.saveCount == 1)
        }
    }

    @Test("a request cancelled while the server is still answering throws CancellationError before the answer exists")
    func cancellationInFlight() async throws {
        try await RefreshFixture.with { fixture in
            let (client, _) = fixture.authorizedClient(fixture.seed(expiresIn: 3600))
            // The token endpoint, holding its answer until the test releases it, stands in for a slow API.
            fixture.server.holdTokenAnswers()
            let slow = HTTPRequest(method: .post, url: fixture.server.tokenEndpoint)

            let task = Task { try await client.send(slow, body: Data("grant_type=client_credentials".utf8)) }
            try await fixture.server.waitForHeldTokenRequests(1)
            task.cancel()

            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(fixture.server.stats.responsesByStatus.isEmpty)
            #expect(fixture.server.heldTokenRequests == 1, "the server was still holding the answer")
        }
    }

    @Test("a URLRequest is sent with its body and answered with an HTTPURLResponse; a body stream is refused")
    func urlRequestConvenience() async throws {
        try await RefreshFixture.with { fixture in
            let (client, _) = fixture.authorizedClient(fixture.seed(expiresIn: 3600))
            var request = URLRequest(url: fixture.server.url("/resource/notes"))
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"note":"hi"}"#.utf8)

            let (data, response) = try await client.data(for: request)
            let echo = try JSONDecoder.snakeCase.decode(Echo.self, from: data)

            #expect(response.statusCode == 200)
            #expect(response.url == request.url)
            #expect(echo.body == #"{"note":"hi"}"#)

            var streamed = request
            streamed.httpBodyStream = InputStream(data: Data("x".utf8))
            let streamError = await #expect(throws: TokenAuthError.self) { try await client.data(for: streamed) }
            #expect(streamError?.code == .invalidRequest)
        }
    }

    @Test("load throws unacceptableStatus for a non-2xx answer, with its status and body")
    func loadRejectsErrorStatus() async throws {
        try await RefreshFixture.with { fixture in
            let (client, _) = fixture.authorizedClient(fixture.seed(expiresIn: 3600))

            let error = await #expect(throws: TokenAuthError.self) {
                try await client.load(Echo.self, from: fixture.server.url("/missing"))
            }

            #expect(error?.code == .unacceptableStatus)
            #expect(error?.statusCode == 404)
            #expect(error?.body?.isEmpty == false)
        }
    }

    @Test("the Authorization scheme comes from the stored token type")
    func authorizationScheme() {
        #expect(Auth(accessToken: "t").authorizationHeaderValue == "Bearer t")
        #expect(Auth(accessToken: "t", tokenType: "bearer").authorizationHeaderValue == "Bearer t")
        #expect(Auth(accessToken: "t", tokenType: "MAC").authorizationHeaderValue == "MAC t")
    }
}
