import Foundation
import HTTPTypes
import OAuthTestServer
import OAuthTestSupport
import Testing
import TestSupport
import TokenAuth
import TokenAuthURLSession
import TokenAuthTesting

/// The local OAuth server itself: what tests elsewhere rely on.
@Suite("Local OAuth test server")
struct OAuthTestServerTests {
    @Test("it listens on an ephemeral loopback port and reports the real port")
    func ephemeralPort() async throws {
        try await withServer { first in
            try await withServer { second in
                #expect(first.port > 0)
                #expect(first.port != second.port)
                #expect(first.baseURL.absoluteString == "http://127.0.0.1:\(first.port)")
                #expect(first.tokenEndpoint.path == "/token")
                let reply = try await call(.get, first.publicURL)
                #expect(reply.status == 200)
            }
        }
    }

    @Test("starting on a port that is in use throws instead of hanging")
    func portInUse() async throws {
        try await withServer { server in
            var configuration = OAuthTestServer.Configuration()
            configuration.port = server.port
            await #expect(throws: (any Error).self) { _ = try await OAuthTestServer.start(configuration) }
        }
    }

    @Test("after shutdown nothing listens on its port")
    func shutdownStopsListening() async throws {
        let server = try await OAuthTestServer.start()
        #expect(try await call(.get, server.publicURL).status == 200)
        await server.shutdown()
        await expectTokenAuthError(.networkFailure) { try await call(.get, server.publicURL) }
        await server.shutdown()
    }

    @Test("a request without a token gets 401 with a realm-only Bearer challenge (RFC 6750 §3.1)")
    func missingToken() async throws {
        try await withServer { server in
            let reply = try await call(.get, server.resourceURL)
            #expect(reply.status == 401)
            #expect(reply.headers[.wwwAuthenticate] == #"Bearer realm="oauth-test-server""#)
        }
    }

    @Test("an unknown token gets 401 invalid_token")
    func unknownToken() async throws {
        try await withServer { server in
            let reply = try await call(.get, server.resourceURL, bearer: "made-up")
            #expect(reply.status == 401)
            #expect(reply.headers[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true)
        }
    }

    @Test("tokens expire by the server's injected clock")
    func expiryByServerClock() async throws {
        let clock = ManualWallClock()
        var configuration = OAuthTestServer.Configuration()
        configuration.clock = { clock.now }
        configuration.accessTokenLifetime = .seconds(60)
        try await withServer(configuration) { server in
            let issued = server.issueTokens(clientID: "test-client", subject: "alice")
            #expect(issued.expiresAt == clock.now.addingTimeInterval(60))
            #expect(try await call(.get, server.resourceURL, bearer: issued.accessToken).status == 200)
            clock.advance(by: 60)
            let expired = try await call(.get, server.resourceURL, bearer: issued.accessToken)
            #expect(expired.status == 401)
            #expect(expired.headers[.wwwAuthenticate]?.contains("expired") == true)
        }
    }

    @Test("the resource echoes method, path, query, body and the token's subject")
    func echo() async throws {
        try await withServer { server in
            let token = server.issueTokens(clientID: "test-client", subject: "alice", scope: "read").accessToken
            let reply = try await call(.post, server.url("/resource/things?x=1"), bearer: token, body: Data(#"{"a":"é"}"#.utf8))
            #expect(reply.status == 200)
            #expect(reply.json["method"] as? String == "POST")
            #expect(reply.json["path"] as? String == "/resource/things")
            #expect(reply.json["query"] as? String == "x=1")
            #expect(reply.json["body"] as? String == #"{"a":"é"}"#)
            #expect(reply.json["token_subject"] as? String == "alice")
            #expect(reply.json["scope"] as? String == "read")
        }
    }

    @Test("/resource/admin answers 403 insufficient_scope without the admin scope, 200 with it")
    func insufficientScope() async throws {
        try await withServer { server in
            let reader = server.issueTokens(clientID: "test-client", subject: "alice", scope: "read").accessToken
            let forbidden = try await call(.get, server.adminResourceURL, bearer: reader)
            #expect(forbidden.status == 403)
            let challenge = try #require(forbidden.headers[.wwwAuthenticate])
            #expect(challenge.hasPrefix("Bearer "))
            #expect(challenge.contains(#"error="insufficient_scope""#))
            #expect(challenge.contains(#"scope="admin""#))
            let admin = server.issueTokens(clientID: "test-client", subject: "alice", scope: "read admin").accessToken
            #expect(try await call(.get, server.adminResourceURL, bearer: admin).status == 200)
        }
    }

    @Test("revoking access tokens over HTTP makes the resource answer 401, and a refresh recovers")
    func revocationOverHTTP() async throws {
        try await withServer { server in
            let client = server.tokenClient()
            let tokens = try await client.password(username: "alice", password: "wonderland")
            #expect(try await call(.get, server.resourceURL, bearer: tokens.accessToken).status == 200)

            let revoked = try await call(.post, server.url("/_admin/revoke-access-tokens"))
            #expect(revoked.json["revoked"] as? Int == 1)

            let rejected = try await call(.get, server.resourceURL, bearer: tokens.accessToken)
            #expect(rejected.status == 401)
            #expect(rejected.headers[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true)
            let refreshed = try await client.refresh(refreshToken: try #require(tokens.refreshToken))
            #expect(try await call(.get, server.resourceURL, bearer: refreshed.accessToken).status == 200)
        }
    }

    @Test("faults set over HTTP apply to the next token requests and are counted down")
    func faultsOverHTTP() async throws {
        try await withServer { server in
            let set = try await call(.post, server.url("/_admin/faults"), body: Data(#"{"serverErrors":1,"malformed":1}"#.utf8))
            #expect(set.status == 200)
            #expect(server.faults == OAuthTestServer.Faults(serverErrors: 1, malformed: 1))

            let client = server.tokenClient()
            #expect(await tokenError { try await client.clientCredentials() } == .serverError)
            #expect(await tokenError { try await client.clientCredentials() } == .malformedResponse)
            _ = try await client.clientCredentials()
            #expect(server.faults == OAuthTestServer.Faults())

            let bad = try await call(.post, server.url("/_admin/faults"), body: Data("not json".utf8))
            #expect(bad.status == 400)
        }
    }

    @Test("expiresInJSON, set over HTTP, is sent verbatim as expires_in by every token response until cleared")
    func rawExpiresIn() async throws {
        try await withServer { server in
            let set = try await call(.post, server.url("/_admin/faults"), body: Data(#"{"expiresInJSON":"1e17"}"#.utf8))
            #expect(set.status == 200)
            let form = Data("grant_type=client_credentials&client_id=test-client".utf8)
            let headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            for _ in 0..<2 {
                let request = HTTPRequest(method: .post, url: server.tokenEndpoint, headerFields: headers)
                let (_, body) = try await URLSessionHTTPTransport().send(request, body: form)
                #expect(String(decoding: body, as: UTF8.self).hasPrefix(#"{"expires_in":1e17,"access_token":""#))
            }
            server.faults = OAuthTestServer.Faults(expiresInJSON: #""3599""#)
            #expect(try await call(.post, server.tokenEndpoint, headers: headers, body: form).json["expires_in"] as? String == "3599")
            server.faults = OAuthTestServer.Faults()
            #expect(try await call(.post, server.tokenEndpoint, headers: headers, body: form).json["expires_in"] as? Int == 3600)
        }
    }

    @Test("stats over HTTP match the API and do not count admin requests")
    func statsOverHTTP() async throws {
        try await withServer { server in
            _ = try await server.tokenClient().clientCredentials()
            try await call(.get, server.resourceURL)
            let stats = try await call(.get, server.url("/_admin/stats"))
            #expect(stats.json["clientCredentialsGrants"] as? Int == 1)
            #expect(stats.json["resourceRequests"] as? Int == 1)
            let byStatus = try #require(stats.json["responsesByStatus"] as? [String: Int])
            #expect(byStatus == ["200": 1, "401": 1])
            #expect(server.stats.responsesByStatus == [200: 1, 401: 1])

            try await call(.post, server.url("/_admin/stats/reset"))
            #expect(server.stats == OAuthTestServer.Stats())
        }
    }

    @Test("refresh grants are counted even when a fault answers them")
    func refreshGrantsCountedUnderFaults() async throws {
        try await withServer { server in
            let issued = server.issueTokens(clientID: "test-client", subject: "alice")
            server.updateFaults { $0.serverErrors = 2 }
            let client = server.tokenClient()
            for _ in 0..<2 {
                _ = await tokenError { try await client.refresh(refreshToken: try #require(issued.refreshToken)) }
            }
            #expect(server.stats.refreshGrants == 2)
            #expect(server.stats.successfulRefreshes == 0)
            #expect(server.stats.responses(withStatus: 500) == 2)
        }
    }

    @Test("a refresh token is bound to the client it was issued to")
    func refreshTokenBoundToClient() async throws {
        let configuration = OAuthTestServer.Configuration(clients: [
            OAuthTestServer.RegisteredClient(id: "test-client"), OAuthTestServer.RegisteredClient(id: "other"),
        ])
        try await withServer(configuration) { server in
            let issued = server.issueTokens(clientID: "test-client", subject: "alice")
            let error = await tokenError { try await server.tokenClient(id: "other").refresh(refreshToken: try #require(issued.refreshToken)) }
            #expect(error == .invalidGrant)
            #expect(server.stats.reuseDetections == 0)
        }
    }

    @Test("malformed token requests get RFC 6749 errors")
    func malformedTokenRequests() async throws {
        try await withServer { server in
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let noGrant = try await call(.post, server.tokenEndpoint, headers: form, body: Data("client_id=test-client".utf8))
            #expect(noGrant.status == 400)
            #expect(noGrant.json["error"] as? String == "invalid_request")

            let unknownGrant = try await call(.post, server.tokenEndpoint, headers: form, body: Data("grant_type=magic&client_id=test-client".utf8))
            #expect(unknownGrant.json["error"] as? String == "unsupported_grant_type")

            let duplicate = try await call(.post, server.tokenEndpoint, headers: form, body: Data("grant_type=password&grant_type=password&client_id=test-client".utf8))
            #expect(duplicate.json["error"] as? String == "invalid_request")

            let json = try await call(.post, server.tokenEndpoint, headers: [.contentType: "application/json"], body: Data("{}".utf8))
            #expect(json.json["error"] as? String == "invalid_request")

            let unknownClient = try await call(.post, server.tokenEndpoint, headers: form, body: Data("grant_type=client_credentials&client_id=nobody".utf8))
            #expect(unknownClient.status == 401)
            #expect(unknownClient.json["error"] as? String == "invalid_client")
            #expect(unknownClient.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)

            let get = try await call(.get, server.tokenEndpoint)
            #expect(get.status == 405)
        }
    }

    @Test("the oauth-test-server executable prints one line once bound and exits cleanly on SIGTERM")
    func executable() async throws {
        let server = try startCommand(
            try Self.executable(),
            ["--client-id", "cli", "--client-secret", "cli-secret", "--user", "bob:builder", "--expires-in", "120"])
        defer { if server.isRunning { kill(server.pid, SIGTERM) } }

        let printed = try await server.waitForStdout(containing: "\n", within: .seconds(60))
        try #require(printed, "it ended without printing a line: \(server.stderrSoFar)")
        let line = String(server.stdoutSoFar.prefix { $0 != "\n" })
        #expect(line.hasPrefix("listening on http://127.0.0.1:"))
        let baseURL = try #require(URL(string: String(line.dropFirst("listening on ".count))))

        let client = TokenEndpointClient(client: OAuthClient(
            tokenEndpoint: baseURL.appendingPathComponent("token"),
            clientID: "cli",
            clientSecret: "cli-secret"
        ), transport: URLSessionHTTPTransport())
        let clock = ManualWallClock()
        let tokens = try await TokenEndpointClient(client: client.client, transport: URLSessionHTTPTransport(), wallClock: clock.wallClock)
            .password(username: "bob", password: "builder")
        #expect(tokens.expiresAt == clock.now.addingTimeInterval(120))
        let stats = try await call(.get, baseURL.appendingPathComponent("_admin/stats"))
        #expect(stats.json["passwordGrants"] as? Int == 1)

        kill(server.pid, SIGTERM)
        let result = await server.finish()
        #expect(result.signal == nil && result.status == 0, "exited by itself, with status 0: \(result.stderr)")
        #expect(result.stdout == line + "\n", "nothing more on standard output")
    }

    @Test("oauth-test-server --help names the device verification page and the admin call that decides a code")
    func helpNamesTheDeviceFlow() async throws {
        let result = try await runCommand(try Self.executable(), ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("its verification_uri is the page /device"), "\(result.stdout)")
        #expect(result.stdout.contains("/_admin/device/decide"), "\(result.stdout)")
        #expect(result.stdout.contains("GET /_admin/device/pending"), "\(result.stdout)")
    }

    /// The executable that `swift build --build-tests` put beside the test bundle.
    static func executable() throws -> String {
        try #require(
            BuiltExecutable.path("oauth-test-server"),
            "no oauth-test-server among \(BuiltExecutable.candidates("oauth-test-server").map(\.path)); build it first")
    }
}
