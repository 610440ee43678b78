import ChildProcesses
import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenKeyring

/// An app that links the library dies while its refresh grant is at the server — the server holds the answer while
/// the test kills the app, then sends it. Counted at the server (grants, reuse detections) and read from the item.
@Suite("AuthSession: an app killed while its grant is at the server keeps the session", .needsSecretService,
       .serialized, .timeLimit(.minutes(2)))
struct AuthSessionAppDeathTests {
    /// The app of these tests (`Tests/SessionApp`).
    static func appPath() throws -> String {
        try #require(BuiltExecutable.path("session-app"), "no session-app executable: run `swift build --build-tests`")
    }

    /// A server, an item of `ada`'s whose access token expired (recorded with its client and issuer, as a sign-in
    /// records them), and the app started on it with its grant held at the server: returns with the window open.
    static func withAppHeldAtTheGrant(
        skippingBootstrap: Bool = false,
        _ body: (OAuthTestServer, KeyringAuthStore, ChildProcess) async throws -> Void
    ) async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            let store = KeyringAuthStore(service: service, account: "ada", keyring: TestKeyring.keyring)
            try await cleaningUp({ _ = try? await store.remove() }) {
                let issued = server.issueTokens(clientID: "test-client", subject: "ada", scope: "read")
                let client = OAuthClient(
                    tokenEndpoint: server.tokenEndpoint, clientID: "test-client", issuer: server.issuer)
                let auth = Auth(
                    accessToken: issued.accessToken, refreshToken: issued.refreshToken,
                    expiresAt: Date(timeIntervalSinceNow: -60), issuedAt: Date(timeIntervalSinceNow: -3660))
                try await store.signIn(StoredCredentials(auth: auth, client: client))

                server.holdTokenAnswers()
                let app = try startCommand(
                    try appPath(),
                    [server.issuer.absoluteString, server.resourceURL.absoluteString, service, "ada"],
                    environment: ["SESSION_APP_SKIPS_BOOTSTRAP": skippingBootstrap ? "1" : nil])
                try await server.waitForHeldTokenRequests(1)
                try await body(server, store, app)
            }
        }
    }

    @Test("SIGKILL or SIGTERM of the app at the grant: the answer is stored, the next process uses it, no reuse",
          arguments: [SIGKILL, SIGTERM])
    func killedAtTheGrant(signal: Int32) async throws {
        try await Self.withAppHeldAtTheGrant { server, store, app in
            let before = try #require(try await store.loadCredentials())
            kill(app.pid, signal)
            server.releaseTokenAnswers()
            // The refreshing process outlived the app: it stores the answer.
            try await waitUntil("the refreshed tokens stored") {
                let stored = try await store.loadCredentials()
                return stored?.auth.accessToken != before.auth.accessToken && stored?.auth.refreshStartedAt == nil
            }
            // Its output ends once the refreshing process, which shares the app's standard error, has ended too.
            let ended = await app.finish()
            #expect(ended.status == -1, "the app ended by the signal: \(ended.stdout) \(ended.stderr)")
            // The next process — the app started again — goes on with them.
            let again = try startCommand(
                try Self.appPath(),
                [server.issuer.absoluteString, server.resourceURL.absoluteString, store.service, "ada"])
            #expect(try await again.waitForStdout(containing: "ok 200"), "the app started again makes requests")
            kill(again.pid, SIGKILL)
            _ = await again.finish()
            #expect(server.stats.refreshGrants == 1, "the killed app's grant, stored; none since")
            #expect(server.stats.reuseDetections == 0)
            #expect(try await store.loadCredentials()?.auth.endReason == nil)
        }
    }

    @Test("two apps and tokenctl on one item: the app whose refresh holds the grant is killed; everyone keeps the session")
    func killedBesideOthers() async throws {
        try await Self.withAppHeldAtTheGrant { server, store, first in
            let second = try startCommand(
                try Self.appPath(),
                [server.issuer.absoluteString, server.resourceURL.absoluteString, store.service, "ada"])
            #expect(try await second.waitForStdout(containing: "started"))
            let tokenctl = try #require(BuiltExecutable.path("tokenctl"), "no tokenctl: run `swift build --build-tests`")
            // tokenctl asks while the grant is out: it waits for the item's lock, held by the refreshing process.
            let waiting = try startCommand(tokenctl, ["token", "--service", store.service, "--account", "ada", "--no-prompt"])
            // The first app's refreshing process sent the held grant (the second's waits for the lock): its child, in a
            // session of its own.
            let refreshing = try #require(try ProcessStat.all().first { $0.parent == first.pid }, "no refreshing process")
            #expect(refreshing.session == refreshing.pid, "a session of its own")
            let (holder, survivor) = (first, second)
            kill(holder.pid, SIGKILL)
            server.releaseTokenAnswers()

            let token = await waiting.finish()
            #expect(token.status == 0, "\(token.stderr)")
            try await waitUntil("the refreshed tokens stored") {
                try await store.loadCredentials()?.auth.refreshStartedAt == nil
            }
            let stored = try #require(try await store.loadCredentials())
            #expect(token.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == stored.auth.accessToken)
            for _ in 0..<3 {
                let again = try await runCommand(tokenctl, ["token", "--service", store.service, "--account", "ada", "--no-prompt"])
                #expect(again.status == 0, "\(again.stderr)")
            }
            let before = server.stats.resourceRequests
            try await waitUntil("the surviving app's requests after the refresh") { server.stats.resourceRequests >= before + 3 }
            kill(survivor.pid, SIGKILL)
            let survived = await survivor.finish()
            #expect(survived.stdout.hasSuffix("ok 200\n"), "\(survived.stdout.suffix(300))")
            _ = await holder.finish()
            #expect(server.stats.refreshGrants == 1, "one grant for two apps and four tokenctl calls")
            #expect(server.stats.reuseDetections == 0)
        }
    }

    @Test("the control: an app that skips bootstrap() loses the session when killed at the grant (reuse detected)")
    func withoutBootstrapTheSessionIsLost() async throws {
        try await Self.withAppHeldAtTheGrant(skippingBootstrap: true) { server, store, app in
            kill(app.pid, SIGKILL)
            _ = await app.finish()
            server.releaseTokenAnswers()
            let again = try startCommand(
                try Self.appPath(),
                [server.issuer.absoluteString, server.resourceURL.absoluteString, store.service, "ada"],
                environment: ["SESSION_APP_SKIPS_BOOTSTRAP": "1"])
            #expect(try await again.waitForStdout(containing: "error"), "the answer died with the app")
            kill(again.pid, SIGKILL)
            _ = await again.finish()
            #expect(server.stats.reuseDetections == 1, "the same refresh token sent again: the family revoked")
        }
    }
}
