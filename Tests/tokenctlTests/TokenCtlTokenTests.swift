import ChildProcesses
import Foundation
import Keyring
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthKeyring

@Suite("tokenctl token and refresh against a real OAuth server", .needsSecretService)
struct TokenCtlTokenTests {
    /// Stores tokens the server issued, expiring in `expiresIn` seconds (negative: already expired), with the
    /// server's token endpoint (or `tokenEndpoint`) recorded in the item.
    func seedItem(
        _ server: OAuthTestServer, service: String, expiresIn: TimeInterval = -60, tokenEndpoint: URL? = nil
    ) async throws -> Auth {
        let issued = server.issueTokens(clientID: "test-client", subject: "alice")
        let auth = Auth(
            accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresAt: Date(timeIntervalSinceNow: expiresIn))
        let client = OAuthClient(tokenEndpoint: tokenEndpoint ?? server.tokenEndpoint, clientID: "test-client")
        try await KeyringAuthStore(service: service, account: "alice", client: client, keyring: TestKeyring.keyring).save(auth)
        return auth
    }

    @Test("8 tokenctl token processes over one expired item: exactly 1 refresh grant, 0 reuse detections, one token")
    func crossProcessSingleRefresh() async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await cleaningUp({ _ = try? await TestKeyring.keyring.delete(["service": service, "account": "alice"]) }) {
                let seeded = try await seedItem(server, service: service)

                let results = try await withThrowingTaskGroup(of: ChildResult.self) { group in
                    for _ in 0..<8 {
                        group.addTask { try await tokenctl(["token", "--service", service, "--account", "alice", "--no-prompt"]) }
                    }
                    return try await group.reduce(into: [ChildResult]()) { $0.append($1) }
                }
                #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
                let tokens = Set(results.map { $0.stdout.trimmingCharacters(in: .whitespacesAndNewlines) })
                #expect(tokens.count == 1)
                #expect(!tokens.contains(seeded.accessToken))
                #expect(server.stats.refreshGrants == 1)
                #expect(server.stats.reuseDetections == 0)

                let stored = try #require(try await KeyringAuthStore(service: service, account: "alice", keyring: TestKeyring.keyring).load())
                #expect(tokens.contains(stored.accessToken))
            }
        }
    }

    @Test("tokenctl token prints only the token; a valid one is printed without a request")
    func tokenWithoutRefresh() async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await cleaningUp({ _ = try? await TestKeyring.keyring.delete(["service": service, "account": "alice"]) }) {
                let seeded = try await seedItem(server, service: service, expiresIn: 3600)

                let result = try await tokenctl(["token", "--service", service, "--account", "alice"])
                #expect(result.status == 0)
                #expect(result.stdout == seeded.accessToken + "\n")
                #expect(server.stats.tokenRequests == 0)
            }
        }
    }

    @Test("tokenctl refresh forces a refresh of tokens valid for another hour and stores the rotated tokens")
    func forcedRefresh() async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await cleaningUp({ _ = try? await TestKeyring.keyring.delete(["service": service, "account": "alice"]) }) {
                // Valid for an hour: only forcing refreshes them (tokenctl token would print them as they are).
                let seeded = try await seedItem(server, service: service, expiresIn: 3600)

                let result = try await tokenctl(["refresh", "--service", service, "--account", "alice"])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout.isEmpty)
                let stored = try #require(try await KeyringAuthStore(service: service, account: "alice", keyring: TestKeyring.keyring).loadCredentials())
                #expect(stored.auth.accessToken != seeded.accessToken)
                #expect(stored.auth.refreshToken != seeded.refreshToken)
                #expect(stored.client?.tokenEndpoint == server.tokenEndpoint)
                #expect(server.stats.successfulRefreshes == 1)
            }
        }
    }

    @Test("exit 3 when the server rejects the refresh token, 5 when it fails transiently; the item is kept, saying what it knows")
    func exitCodesForFailures() async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await cleaningUp({ _ = try? await TestKeyring.keyring.delete(["service": service, "account": "alice"]) }) {
                let seeded = try await seedItem(server, service: service)
                let store = KeyringAuthStore(service: service, account: "alice", keyring: TestKeyring.keyring)
                let before = try await store.loadCredentials()  // expiry as stored: whole seconds

                server.updateFaults { $0.unavailable = 1; $0.retryAfter = "5" }
                let transient = try await tokenctl(["token", "--service", service, "--account", "alice"])
                #expect(transient.status == 5)
                #expect(transient.stdout.isEmpty)
                #expect(transient.stderr.contains("kept"))
                // The same tokens, marked: the refresh token was sent, and may have been spent.
                let afterTransient = try #require(try await store.loadCredentials())
                #expect(afterTransient.auth.isSameVersion(as: try #require(before).auth))
                #expect(afterTransient.auth.refreshStartedAt != nil)
                #expect(afterTransient.client == before?.client)
                let status = try await tokenctl(["status", "--service", service, "--no-prompt"])
                #expect(status.stdout.contains("a refresh was not stored: its refresh token may have been spent"), "\(status.stdout)")
                let show = try await tokenctl(["show", "--service", service, "--account", "alice", "--no-prompt"])
                #expect(show.stdout.contains("the refresh token may have been spent"), "\(show.stdout)")

                server.updateFaults { $0.invalidGrantRefreshes = 1 }
                let rejected = try await tokenctl(["token", "--service", service, "--account", "alice"])
                #expect(rejected.status == 3)
                #expect(rejected.stderr.contains("invalid_grant"))
                #expect(!rejected.allOutput.contains(seeded.refreshToken!))
                // Kept, saying that a sign-in is required, without the refresh token the server refused.
                let afterRejection = try #require(try await store.loadCredentials())
                #expect(afterRejection.auth.accessToken == before?.auth.accessToken)
                #expect(afterRejection.auth.refreshToken == nil)
                #expect(afterRejection.auth.endReason?.contains("invalid_grant") == true)
                #expect(afterRejection.client == before?.client)
                let grants = server.stats.refreshGrants
                #expect(try await tokenctl(["token", "--service", service, "--account", "alice"]).status == 3)
                #expect(server.stats.refreshGrants == grants, "the refused refresh token is not sent again")
            }
        }
    }

    @Test("exit 64 naming the Location when the recorded token endpoint redirects, for token and request; the item is kept")
    func redirectingTokenEndpoint() async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await cleaningUp({ _ = try? await TestKeyring.keyring.delete(["service": service, "account": "alice"]) }) {
                let slashed = server.url("/token/")
                let seeded = try await seedItem(
                    server, service: service, tokenEndpoint: server.redirectURL(to: slashed, status: 308))
                let store = KeyringAuthStore(service: service, account: "alice", keyring: TestKeyring.keyring)
                let before = try await store.loadCredentials()

                let item = ["--service", service, "--account", "alice"]
                for command in [["token"] + item, ["request"] + item + [server.resourceURL.absoluteString]] {
                    let result = try await tokenctl(command)
                    #expect(result.status == 64, "\(command[0]): \(result.stderr)")
                    #expect(result.stderr.contains("redirects to \(slashed.absoluteString)"), "\(command[0])")
                    #expect(!result.allOutput.contains(seeded.refreshToken!))
                }
                #expect(server.recordedRequests.allSatisfy { $0.uri.hasPrefix("/redirect?") })
                #expect(try await store.loadCredentials()?.auth.isSameVersion(as: try #require(before).auth) == true)
            }
        }
    }

    @Test("exit 3 when nothing is stored")
    func nothingStored() async throws {
        let result = try await tokenctl(["token", "--service", TestKeyring.uniqueService(), "--account", "nobody"])
        #expect(result.status == 3)
        #expect(result.stdout.isEmpty)
    }
}
