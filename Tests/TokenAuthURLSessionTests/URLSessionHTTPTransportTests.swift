import Foundation
import HTTPTypes
import OAuthTestServer
import OAuthTestSupport
import Testing
import TokenAuth
@testable import TokenAuthURLSession

/// The URLSession transport against a real local server.
@Suite("URLSession transport")
struct URLSessionHTTPTransportTests {
    @Test("error statuses are returned as responses, not thrown")
    func errorStatusesAreResponses() async throws {
        try await withServer { server in
            let (response, body) = try await URLSessionHTTPTransport().send(HTTPRequest(method: .get, url: server.resourceURL), body: nil)
            #expect(response.status == .unauthorized)
            #expect(response.headerFields[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            #expect(!body.isEmpty)
        }
    }

    @Test("a 401 with a Basic challenge is returned with its body instead of hanging")
    func basicChallengeIsReturned() async throws {
        try await withServer { server in
            let request = HTTPRequest(
                method: .post,
                url: server.tokenEndpoint,
                headerFields: [.contentType: "application/x-www-form-urlencoded", .authorization: "Basic bm9ib2R5Om5vdGhpbmc="]
            )
            let body = Data("grant_type=client_credentials".utf8)
            // A hang would end in the transport's timeout error. The default 30 s leaves room for a loaded machine,
            // where the 5 s this test once used timed out before the in-process server answered.
            let (response, data) = try await URLSessionHTTPTransport().send(request, body: body)
            #expect(response.status == .unauthorized)
            #expect(response.headerFields[.wwwAuthenticate]?.hasPrefix("Basic") == true)
            let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(json?["error"] as? String == "invalid_client")
        }
    }

    @Test("a request body arrives byte for byte")
    func bodyArrivesIntact() async throws {
        try await withServer { server in
            let token = server.issueTokens(clientID: "test-client", subject: "alice").accessToken
            let bytes = Data((0...255).map(UInt8.init) + Array("é🙂\r\n".utf8))
            let reply = try await call(.put, server.url("/resource/items/1"), bearer: token, body: bytes)
            #expect(reply.status == 200)
            #expect(reply.json["method"] as? String == "PUT")
            #expect((reply.json["body_base64"] as? String).flatMap { Data(base64Encoded: $0) } == bytes)
        }
    }

    @Test("a response body over the limit is refused")
    func responseSizeLimit() async throws {
        try await withServer { server in
            let token = server.issueTokens(clientID: "test-client", subject: "alice").accessToken
            let transport = URLSessionHTTPTransport(maximumResponseBodySize: 64 * 1024)
            let request = HTTPRequest(method: .post, url: server.resourceURL, headerFields: [.authorization: "Bearer \(token)"])
            await expectTokenAuthError(.responseTooLarge) {
                _ = try await transport.send(request, body: Data(repeating: 0x61, count: 100 * 1024))
            }
            let (small, _) = try await transport.send(request, body: Data(repeating: 0x61, count: 1024))
            #expect(small.status == .ok)
        }
    }

    @Test("a redirect to another origin does not carry the Authorization header")
    func crossOriginRedirectDropsAuthorization() async throws {
        try await withServer { first in
            try await withServer { second in
                let reply = try await call(.get, first.redirectURL(to: second.publicURL), bearer: "TOKEN-THAT-MUST-NOT-LEAK")
                #expect(reply.status == 200)
                #expect(reply.json["authorization_present"] as? Bool == false)
                let seen = try #require(second.recordedRequests.last)
                #expect(seen.uri == "/public")
                #expect(seen.header("authorization") == nil)
            }
        }
    }

    @Test("a redirect within the same origin keeps the Authorization header")
    func sameOriginRedirectKeepsAuthorization() async throws {
        try await withServer { server in
            let token = server.issueTokens(clientID: "test-client", subject: "alice").accessToken
            let reply = try await call(.get, server.redirectURL(to: server.resourceURL), bearer: token)
            #expect(reply.status == 200)
            #expect(reply.json["token_subject"] as? String == "alice")
        }
    }

    @Test("with redirects refused, a 3xx to a POST is the response, Location and all, and its target gets nothing")
    func refusedRedirectIsTheResponse() async throws {
        try await withServer { first in
            try await withServer { second in
                let request = HTTPRequest(
                    method: .post, url: first.redirectURL(to: second.tokenEndpoint, status: 308),
                    headerFields: [.authorization: "Basic Y2xpZW50OnNlY3JldA=="])
                let (response, _) = try await URLSessionHTTPTransport().send(
                    request, body: Data("grant_type=client_credentials".utf8), redirects: .refuse)
                #expect(response.status.code == 308)
                #expect(response.headerFields[.location] == second.tokenEndpoint.absoluteString)
                #expect(second.recordedRequests.isEmpty)
            }
        }
    }

    @Test("a refused connection is a network failure")
    func connectionRefused() async throws {
        let url = try await withServer { $0.publicURL }  // nothing listens there any more
        do {
            _ = try await URLSessionHTTPTransport().send(HTTPRequest(method: .get, url: url), body: nil)
            Issue.record("the request succeeded")
        } catch let error as TokenAuthError {
            #expect(error.code == .networkFailure)
        }
    }

    @Test("a server that does not answer in time is a timeout")
    func timeout() async throws {
        try await withServer { server in
            server.updateFaults { $0.tokenLatencyMilliseconds = 1500 }
            let transport = URLSessionHTTPTransport(timeout: .milliseconds(300))
            let request = HTTPRequest(method: .post, url: server.tokenEndpoint, headerFields: [.contentType: "application/x-www-form-urlencoded"])
            do {
                _ = try await transport.send(request, body: Data("grant_type=client_credentials&client_id=test-client".utf8))
                Issue.record("the request succeeded")
            } catch let error as TokenAuthError {
                #expect(error.code == .timedOut)
            }
        }
    }

    @Test("a request that cannot become a URLRequest is refused")
    func invalidRequest() async {
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "relative")
        await expectTokenAuthError(.invalidRequest) {
            _ = try await URLSessionHTTPTransport().send(request, body: nil)
        }
    }

    @Test("a task cancelled before sending throws CancellationError without sending")
    func cancelledBeforeSending() async throws {
        try await withServer { server in
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await URLSessionHTTPTransport().send(HTTPRequest(method: .get, url: server.publicURL), body: nil)
            }
            await #expect(throws: CancellationError.self) { _ = try await task.value }
            #expect(server.recordedRequests.isEmpty)
        }
    }

    /// Swift holds a task's status-record lock while it runs the task's cancellation handlers, and resuming a
    /// continuation of that task needs the same lock. FoundationNetworking 6.3's own `data(for:delegate:)` cancels
    /// with a synchronous hop onto the session's queue from its handler, while that queue may be resuming the
    /// continuation: both wait for ever (swiftlang/swift-corelibs-foundation#5412). This races the two many
    /// times over: the first response of each round cancels the rest of its group just as their responses arrive.
    /// When the transport cancelled the task running `data(for:delegate:)`, it hung 3 runs in 3. A deadlock cannot be
    /// ended by a time limit (the cancellation it would send is stuck as well): `scripts/test` stops the run after
    /// 20 minutes and prints the thread stacks.
    @Test("requests cancelled while their responses arrive end, each as a response or a CancellationError")
    func cancellationRacingCompletion() async throws {
        try await withServer { server in
            let transport = URLSessionHTTPTransport()
            let rounds = 300, width = 4
            var answered = 0, cancelled = 0
            for _ in 0..<rounds {
                let outcomes = await withTaskGroup(of: Result<HTTPResponse.Status, any Error>.self) { group in
                    for _ in 0..<width {
                        group.addTask {
                            do {
                                return .success(try await transport.send(HTTPRequest(method: .get, url: server.publicURL), body: nil).0.status)
                            } catch {
                                return .failure(error)
                            }
                        }
                    }
                    var outcomes = [await group.next()!]
                    group.cancelAll()
                    for await outcome in group { outcomes.append(outcome) }
                    return outcomes
                }
                for outcome in outcomes {
                    switch outcome {
                    case .success(let status):
                        #expect(status == .ok)
                        answered += 1
                    case .failure(let error):
                        #expect(error is CancellationError, "\(error)")
                        cancelled += 1
                    }
                }
            }
            #expect(answered + cancelled == rounds * width)
            #expect(answered >= rounds, "the first request of every round is answered")
        }
    }
}
