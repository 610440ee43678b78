import ChildProcesses
import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthKeyring

/// The suites of the network commands (login, request, status, logout), one test at a time: each test runs several
/// `tokenctl` processes against a single-threaded gnome-keyring, and a dozen such tests at once on a 2-core machine
/// push keyring calls past their timeouts. They still run beside every other suite.
@Suite("tokenctl network commands against a real OAuth server", .serialized, .needsSecretService)
enum TokenCtlNetworkTests {}

/// A local OAuth server and a keyring service of a test's own, for the network commands.
struct NetworkFixture {
    static let password = "wonderland-3f9a"
    static let clientSecret = "confidential-secret-81c2"

    let server: OAuthTestServer
    let service: String
    let account = "alice"

    var store: KeyringAuthStore { KeyringAuthStore(service: service, account: account, keyring: TestKeyring.keyring) }

    /// The subcommand `arguments[0]` with `--service S --account A --no-prompt` and the rest of `arguments`.
    func item(_ arguments: String...) -> [String] {
        [arguments[0], "--service", service, "--account", account, "--no-prompt"] + arguments.dropFirst()
    }

    /// Runs `body` with a server (public client `test-client`, confidential client `vault` with
    /// ``clientSecret``, user `alice` with ``password``; with `dpop`, DPoP advertised, required of `test-client` and
    /// with nonces), then stops the server and deletes the test's item.
    static func with<T>(
        accessTokenLifetime: Duration = .seconds(3600),
        refreshTokenLifetime: Duration? = nil,
        deadRefreshTokenAnswer: OAuthTestServer.DeadRefreshTokenAnswer = .invalidGrant,
        dpop: Bool = false,
        function: String = #function,
        _ body: (NetworkFixture) async throws -> T
    ) async throws -> T {
        var configuration = OAuthTestServer.Configuration(
            clients: [.init(id: "test-client", requiresDPoP: dpop), .init(id: "vault", secret: clientSecret)],
            users: ["alice": password],
            accessTokenLifetime: accessTokenLifetime)
        // With `dpop`: advertised, required of the public client, with nonces.
        configuration.advertisesDPoP = dpop
        configuration.dpopNonces = dpop
        configuration.refreshTokenLifetime = refreshTokenLifetime
        configuration.deadRefreshTokenAnswer = deadRefreshTokenAnswer
        return try await withServer(configuration) { server in
            let fixture = NetworkFixture(server: server, service: TestKeyring.uniqueService(function))
            return try await cleaningUp({
                _ = try? await TestKeyring.keyring.delete(["service": fixture.service, "account": fixture.account])
            }) { try await body(fixture) }
        }
    }

    /// Rewrites the stored tokens' times as if issued `age` seconds ago and expiring in `left` seconds, so that a
    /// `tokenctl` process sees them inside (or outside) the refresh leeway — at most half their life — at once.
    func retimeStoredTokens(issuedAgo age: TimeInterval, expiringIn left: TimeInterval) async throws {
        var credentials = try #require(try await store.loadCredentials())
        let now = Date()
        credentials.auth.issuedAt = now.addingTimeInterval(-age)
        credentials.auth.expiresAt = now.addingTimeInterval(left)
        try await store.save(credentials)
    }

    /// The stored format of a session the server really issued to `alice`, whose access token expired a minute ago,
    /// with the token endpoint and public client that refresh it: what `tokenctl import` takes on standard input.
    func expiredBundle() -> String {
        let issued = server.issueTokens(clientID: "test-client", subject: "alice")
        let expired = Date(timeIntervalSinceNow: -60).formatted(.iso8601)
        return #"{"version":1,"access_token":"\#(issued.accessToken)","refresh_token":"\#(issued.refreshToken ?? "")","expires_at":"\#(expired)","token_endpoint":"\#(server.tokenEndpoint.absoluteString)","client_id":"test-client"}"#
    }

    /// Signs in, makes the access token expired, and starts `tokenctl token`, whose refresh grant the server holds: it
    /// returns with the refresh window open, the grant at the server, for the test to make its fault in. The caller
    /// releases the answers (`server.releaseTokenAnswers()`) and finishes the process.
    func startTokenCallHeldAtTheGrant() async throws -> ChildProcess {
        try await login()
        try await retimeStoredTokens(issuedAgo: 3600, expiringIn: -1)
        server.holdTokenAnswers()
        let running = try startCommand(try tokenctlPath(), item("token"))
        try await server.waitForHeldTokenRequests(1)
        return running
    }

    /// Signs in with `tokenctl login` and the password grant of the public client, recording the revocation endpoint.
    func login(scope: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var arguments = item(
            "login", "--token-url", server.tokenEndpoint.absoluteString, "--client-id", "test-client",
            "--revocation-url", server.revocationEndpoint.absoluteString, "--username", "alice", "--password-stdin")
        if let scope { arguments += ["--scope", scope] }
        let result = try await tokenctl(arguments, stdin: Self.password + "\n")
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
    }
}

/// Runs `tokenctl arguments` (a browser sign-in) with a plain HTTP client, curl, as the browser, and no graphical
/// session: returns the result and the page the browser was shown at the end.
func tokenctlWithPlainBrowser(_ arguments: [String]) async throws -> (result: ChildResult, page: String) {
    let directory = try TemporaryDirectory()
    let page = directory.url.appendingPathComponent("page.html").path
    let result = try await tokenctl(
        arguments, environment: ["BROWSER": "curl -sSL --max-time 60 -o \(page) %s", "DISPLAY": nil])
    return (result, (try? String(contentsOfFile: page, encoding: .utf8)) ?? "")
}
