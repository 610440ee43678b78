import ChildProcesses
import Foundation
import HTTPTypes
import KeyringTestSupport
import OAuthTestServer
import Testing
import TestSupport
import TokenAuth
import TokenAuthURLSession

extension TokenCtlNetworkTests {
    /// Several `tokenctl` processes on one item, against a server that rotates refresh tokens and revokes the family
    /// when a retired one comes back. The moments that matter are made by holding the server's answers, and the
    /// outcome is read from what the server counted and what the item holds — never from timing.
    @Suite("tokenctl processes sharing one session")
    struct TokenCtlSharedSessionTests {
        /// What `tokenctl` logs at debug level while it waits for another process's lock on the item.
        static let waitingForLock = "waiting for the refresh lock"

        @Test("a long request across another process's rotation ends 200, with no reuse, and the session alive")
        func longRequestAcrossRotation() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                let firstToken = try #require(try await fixture.store.load()?.accessToken)
                fixture.server.holdResourceAnswers()
                let request = try startCommand(
                    try tokenctlPath(), fixture.item("request", fixture.server.resourceURL.absoluteString))
                try await fixture.server.waitForHeldResourceRequests(1)

                // While the request waits for the API, another process rotates the refresh token…
                let refresh = try await tokenctl(fixture.item("refresh"))
                #expect(refresh.status == 0, "\(refresh.stderr)")
                // …its access token is near its end, from the first process's point of view…
                try await fixture.retimeStoredTokens(issuedAgo: 3600, expiringIn: -1)
                // …and the API rejects the first process's token when it finally looks at it.
                try await revoke(firstToken, at: fixture.server)
                fixture.server.releaseResourceAnswers()

                let result = await request.finish()
                #expect(result.status == 0, "\(result.stderr)")
                #expect(try result.json()["token_subject"] as? String == "alice")
                #expect(fixture.server.stats.reuseDetections == 0)
                #expect(fixture.server.stats.refreshGrants == 2, "the other process's, then one from the stored token")
                // The session is alive for everyone.
                let after = try await tokenctl(fixture.item("request", fixture.server.resourceURL.absoluteString))
                #expect(after.status == 0, "\(after.stderr)")
                #expect(try await tokenctl(fixture.item("refresh")).status == 0)
                #expect(fixture.server.stats.reuseDetections == 0)
            }
        }

        @Test("a sign-in during a slow refresh wins: afterwards the API answers for the new account")
        func signInDuringSlowRefresh() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                try await fixture.retimeStoredTokens(issuedAgo: 3600, expiringIn: -1)
                let refreshing = try await startSlowRefresh(fixture)

                // bob signs in, with tokens the server issued him, while alice's refresh waits for the server.
                let bob = fixture.server.issueTokens(clientID: "test-client", subject: "bob")
                let response = #"{"access_token":"\#(bob.accessToken)","refresh_token":"\#(bob.refreshToken ?? "")","token_type":"Bearer","expires_in":3600}"#
                let login = try startCommand(
                    try tokenctlPath(),
                    fixture.item("login", "--token-url", fixture.server.tokenEndpoint.absoluteString,
                                 "--client-id", "test-client", "--tokens-stdin"),
                    stdin: response, environment: ["TOKENCTL_LOG_LEVEL": "debug"])
                let waited = try await login.waitForStderr(containing: Self.waitingForLock)
                fixture.server.releaseTokenAnswers()
                let (refreshed, signedIn) = (await refreshing.finish(), await login.finish())
                #expect(refreshed.status == 0, "\(refreshed.stderr)")
                #expect(signedIn.status == 0, "\(signedIn.stderr)")
                #expect(waited, "the sign-in waited for the refresh's lock")

                let whoami = try await tokenctl(fixture.item("request", fixture.server.resourceURL.absoluteString))
                #expect(whoami.status == 0, "\(whoami.stderr)")
                #expect(try whoami.json()["token_subject"] as? String == "bob")
                #expect(try await fixture.store.load()?.refreshToken == bob.refreshToken)
                #expect(fixture.server.stats.reuseDetections == 0)
            }
        }

        @Test("a sign-out (logout, delete) during a slow refresh stays: nothing is stored afterwards", arguments: ["logout", "delete"])
        func signOutDuringSlowRefresh(command: String) async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                try await fixture.retimeStoredTokens(issuedAgo: 3600, expiringIn: -1)
                let refreshing = try await startSlowRefresh(fixture)

                let signOut = try startCommand(
                    try tokenctlPath(), fixture.item(command), environment: ["TOKENCTL_LOG_LEVEL": "debug"])
                let waited = try await signOut.waitForStderr(containing: Self.waitingForLock)
                fixture.server.releaseTokenAnswers()
                let (refreshed, signedOut) = (await refreshing.finish(), await signOut.finish())
                #expect(refreshed.status == 0, "\(refreshed.stderr)")
                #expect(signedOut.status == 0, "\(signedOut.stderr)")
                #expect(waited, "the sign-out waited for the refresh's lock")

                #expect(try await fixture.store.load() == nil)
                #expect(try await tokenctl(fixture.item("token")).status == 3)
                if command == "logout" {
                    // The tokens the refresh stored just before were the ones revoked: the token it printed is dead.
                    let printed = refreshed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    #expect(try await status(of: fixture.server.resourceURL, bearer: printed) == 401)
                }
            }
        }

        @Test("an ended session is 'sign-in required' for show and token, and token sends nothing; a pending check is shown")
        func endedAndPendingItems() async throws {
            try await NetworkFixture.with { fixture in
                let common = #""version":1,"access_token":"old-access","token_endpoint":"\#(fixture.server.tokenEndpoint.absoluteString)","client_id":"test-client","issuer":"https://issuer.example","sub":"248289761001","display_name":"ada""#
                let ended = "{" + common + #","ended":"a refresh answered for another account than the one signed in"}"#
                #expect(try await tokenctl(fixture.item("import"), stdin: ended).status == 0)
                let show = try await tokenctl(fixture.item("show"))
                #expect(show.status == 0, "\(show.stderr)")
                #expect(show.stdout.hasPrefix("sign-in required: a refresh answered for another account"))
                #expect(show.stdout.contains("was signed in as ada"))
                let json = try await tokenctl(fixture.item("show", "--json")).json()
                #expect(json["ended"] as? String == "a refresh answered for another account than the one signed in")
                let token = try await tokenctl(fixture.item("token"))
                #expect(token.status == 3)
                #expect(token.stdout.isEmpty)
                #expect(token.stderr.contains("another account"), "\(token.stderr)")
                #expect(fixture.server.stats.tokenRequests == 0)

                let pending = "{" + common + #","refresh_token":"r","unverified_id_token":"eyJhbGciOiJSUzI1NiJ9.e30.c2ln"}"#
                #expect(try await tokenctl(fixture.item("import"), stdin: pending).status == 0)
                let pendingShow = try await tokenctl(fixture.item("show"))
                #expect(pendingShow.stdout.hasPrefix("signed in as ada"))
                #expect(pendingShow.stdout.contains("identity:       check pending"))
                #expect(!pendingShow.allOutput.contains("eyJhbGciOiJSUzI1NiJ9"), "the id_token is never shown")
                let pendingJSON = try await tokenctl(fixture.item("show", "--json")).json()
                #expect(pendingJSON["identity_check_pending"] as? Bool == true)
            }
        }

        /// Starts `tokenctl token` on the item, whose tokens have expired, and returns once its refresh is held at
        /// the server: it holds the item's lock from then on.
        private func startSlowRefresh(_ fixture: NetworkFixture) async throws -> ChildProcess {
            fixture.server.holdTokenAnswers()
            let refreshing = try startCommand(try tokenctlPath(), fixture.item("token"))
            try await fixture.server.waitForHeldTokenRequests(1)
            return refreshing
        }

        /// Revokes one access token at the server's RFC 7009 endpoint, as an API that stops accepting it would.
        private func revoke(_ token: String, at server: OAuthTestServer) async throws {
            let client = OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: "test-client")
            try await TokenRevocationClient(client: client, endpoint: server.revocationEndpoint, transport: URLSessionHTTPTransport())
                .revoke(token, hint: .accessToken)
        }

        /// The status of a GET of `url` with `token`, sent by this test rather than by `tokenctl`.
        private func status(of url: URL, bearer token: String) async throws -> Int {
            let request = HTTPRequest(method: .get, url: url, headerFields: [.authorization: "Bearer \(token)"])
            return try await URLSessionHTTPTransport().send(request, body: nil).0.status.code
        }
    }
}
