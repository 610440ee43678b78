import Foundation
import OAuthTestServer
import OAuthTestSupport
import Testing
@testable import TokenAuth
import TokenAuthTesting
import TokenAuthURLSession

/// The token endpoint's failures: injected faults, a server too slow or gone, a cancelled request.
extension TokenEndpointClientTests {
    // MARK: Faults

    @Test("a 500 is a transient server error and the refresh token is not spent")
    func serverErrorFault() async throws {
        try await withServer { server in
            let client = server.tokenClient()
            let refreshToken = try #require(try await client.password(username: "alice", password: "wonderland").refreshToken)
            server.updateFaults { $0.serverErrors = 1 }
            let error = await tokenError { try await client.refresh(refreshToken: refreshToken) }
            #expect(error?.code == .serverError)
            #expect(error?.statusCode == 500)
            #expect(error?.isTransient == true)
            _ = try await client.refresh(refreshToken: refreshToken)
            #expect(server.stats.refreshGrants == 2)
            #expect(server.stats.successfulRefreshes == 1)
        }
    }

    @Test("a 503 with Retry-After in seconds is transient and carries the delay")
    func unavailableWithSeconds() async throws {
        try await withServer { server in
            server.updateFaults { $0.unavailable = 1; $0.retryAfter = "7" }
            let error = await tokenError { try await server.tokenClient().password(username: "alice", password: "wonderland") }
            #expect(error?.code == .serverError)
            #expect(error?.statusCode == 503)
            #expect(error?.retryAfter == .seconds(7))
        }
    }

    @Test("a 503 with an HTTP-date Retry-After is measured from the injected clock")
    func unavailableWithDate() async throws {
        let clock = ManualWallClock()
        try await withServer { server in
            server.updateFaults { $0.unavailable = 1; $0.retryAfter = RetryAfterTests.imfFixdate(clock.now.addingTimeInterval(120)) }
            let error = await tokenError {
                try await server.tokenClient(clock: clock.wallClock).password(username: "alice", password: "wonderland")
            }
            #expect(error?.retryAfter == .seconds(120))
            #expect(error?.isTransient == true)
        }
    }

    @Test("a malformed 200 body is a transient malformed response")
    func malformedFault() async throws {
        try await withServer { server in
            server.updateFaults { $0.malformed = 1 }
            let error = await tokenError { try await server.tokenClient().password(username: "alice", password: "wonderland") }
            #expect(error?.code == .malformedResponse)
            #expect(error?.statusCode == 200)
            #expect(error?.isTransient == true)
        }
    }

    @Test("an access_token with a space and a line break is a malformed response, never a token")
    func headerBreakingTokenFault() async throws {
        try await withServer { server in
            server.updateFaults { $0.headerBreakingTokens = 1 }
            let error = await tokenError { try await server.tokenClient().password(username: "alice", password: "wonderland") }
            #expect(error?.code == .malformedResponse)
            #expect(error?.description.contains("X-Injected") == false)
        }
    }

    @Test("an injected invalid_grant is permanent and carries the server's description")
    func invalidGrantFault() async throws {
        try await withServer { server in
            let client = server.tokenClient()
            let refreshToken = try #require(try await client.password(username: "alice", password: "wonderland").refreshToken)
            server.updateFaults { $0.invalidGrantRefreshes = 1 }
            let error = await tokenError { try await client.refresh(refreshToken: refreshToken) }
            #expect(error == .invalidGrant)
            #expect(error?.oauthErrorCode == "invalid_grant")
            #expect(error?.oauthError?.errorDescription?.isEmpty == false)
            #expect(error?.statusCode == 400)
        }
    }

    @Test("a lost answer: the refresh token is rotated, the connection closes, and the retired token is then a reuse")
    func lostAnswerFault() async throws {
        try await withServer { server in
            let client = server.tokenClient()
            let refreshToken = try #require(try await client.password(username: "alice", password: "wonderland").refreshToken)
            server.updateFaults { $0.lostAnswers = 1 }
            let lost = await tokenError { try await client.refresh(refreshToken: refreshToken) }
            #expect(lost?.code == .networkFailure, "\(String(describing: lost))")
            #expect(server.stats.successfulRefreshes == 1, "the server rotated before the connection closed")
            #expect(server.faults.lostAnswers == 0)

            let again = await tokenError { try await client.refresh(refreshToken: refreshToken) }
            #expect(again == .invalidGrant)
            #expect(server.stats.reuseDetections == 1)
        }
    }

    @Test("a token endpoint that does not answer in time is a transient timeout")
    func timeout() async throws {
        try await withServer { server in
            server.updateFaults { $0.tokenLatencyMilliseconds = 1500 }
            let transport = URLSessionHTTPTransport(maximumResponseBodySize: TokenResponse.maximumSize, timeout: .milliseconds(300))
            let client = TokenEndpointClient(client: server.client(), transport: transport)
            let error = await tokenError { try await client.password(username: "alice", password: "wonderland") }
            #expect(error?.code == .timedOut)
            #expect(error?.isTransient == true)
        }
    }

    @Test("a token endpoint where nothing listens is a transient network failure")
    func connectionRefused() async throws {
        let client = try await withServer { $0.tokenClient() }  // nothing listens there any more
        let error = await tokenError { try await client.password(username: "alice", password: "wonderland") }
        #expect(error?.code == .networkFailure)
        #expect(error?.isTransient == true)
    }

    @Test("a cancelled request stops waiting promptly")
    func cancellation() async throws {
        try await withServer { server in
            server.holdTokenAnswers()
            let client = server.tokenClient()
            let task = Task { try await client.password(username: "alice", password: "wonderland") }
            // The request is at the server, so the cancellation hits a request in flight.
            try await server.waitForHeldTokenRequests(1)
            task.cancel()
            let result = await task.result
            // Promptly: the server has not answered yet; it holds the answer until released.
            #expect(server.stats.responsesByStatus.isEmpty)
            #expect(server.heldTokenRequests == 1)
            #expect(throws: CancellationError.self) { try result.get() }
            server.releaseTokenAnswers()
        }
    }
}
