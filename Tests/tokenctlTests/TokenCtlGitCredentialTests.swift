import ChildProcesses
import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth

extension TokenCtlNetworkTests {
    /// `tokenctl git-credential` as git runs it: the real `git credential fill`, `approve` and `reject`, with tokenctl
    /// configured as the only helper for the test server's URL (after an empty entry that clears any other).
    @Suite("tokenctl git-credential: git's own credential calls", .timeLimit(.minutes(2)))
    struct TokenCtlGitCredentialTests {
        /// `git credential OPERATION` for `url`, with `extra` attributes, git's own configuration left out.
        static func git(
            _ operation: String, _ fixture: NetworkFixture, url: String? = nil, extra: String = ""
        ) async throws -> ChildResult {
            let helper = "!\(try tokenctlPath()) git-credential --service \(fixture.service) --account \(fixture.account)"
            let home = try TemporaryDirectory()
            return try await runCommand(
                "/usr/bin/git",
                ["-c", "credential.helper=", "-c", "credential.helper=\(helper)", "credential", operation],
                stdin: "url=\(url ?? Self.origin(fixture))\n\(extra)\n",
                environment: ["GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "HOME": home.url.path,
                              "GIT_ASKPASS": nil, "SSH_ASKPASS": nil])
        }

        /// `http://127.0.0.1:PORT`: where the item was signed in (its token endpoint).
        static func origin(_ fixture: NetworkFixture) -> String {
            let endpoint = fixture.server.tokenEndpoint
            return "\(endpoint.scheme!)://\(endpoint.host!):\(endpoint.port!)"
        }

        static func password(in output: String) -> String? {
            output.split(separator: "\n").first { $0.hasPrefix("password=") }.map { String($0.dropFirst("password=".count)) }
        }

        @Test("fill answers oauth2 and the stored token; an expired one is refreshed once for 8 gits at once")
        func fill() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                let stored = try #require(try await fixture.store.load())
                let first = try await Self.git("fill", fixture)
                #expect(first.status == 0, "\(first.stderr)")
                #expect(first.stdout.contains("username=oauth2\n"), "\(first.stdout)")
                #expect(Self.password(in: first.stdout) == stored.accessToken)
                #expect(!first.stdout.contains(try #require(stored.refreshToken)))
                #expect(fixture.server.stats.refreshGrants == 0)

                try await fixture.retimeStoredTokens(issuedAgo: 3600, expiringIn: -1)
                let results = try await withThrowingTaskGroup(of: ChildResult.self) { group in
                    for _ in 0..<8 { group.addTask { try await Self.git("fill", fixture) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let refreshed = try #require(try await fixture.store.load())
                for result in results {
                    #expect(result.status == 0, "\(result.stderr)")
                    #expect(Self.password(in: result.stdout) == refreshed.accessToken)
                }
                #expect(refreshed.accessToken != stored.accessToken)
                #expect(fixture.server.stats.refreshGrants == 1, "one refresh for 8 gits")
                #expect(fixture.server.stats.reuseDetections == 0)
            }
        }

        @Test("another host, protocol or port gets nothing, and git fails without a prompt")
        func otherHosts() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                let port = fixture.server.tokenEndpoint.port!
                for url in ["https://evil.example.com", "https://127.0.0.1:\(port)", "http://127.0.0.1:\(port + 1)"] {
                    let result = try await Self.git("fill", fixture, url: url)
                    #expect(result.status != 0, "\(url): \(result.stdout)")
                    #expect(Self.password(in: result.stdout) == nil, "\(url)")
                }
            }
        }

        @Test("approve of another password leaves the item; reject of a stale one changes nothing; of the token, one refresh")
        func approveAndReject() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                let stored = try #require(try await fixture.store.loadCredentials())
                let approve = try await Self.git("approve", fixture, extra: "username=ada\npassword=a-personal-access-token")
                #expect(approve.status == 0, "\(approve.stderr)")
                #expect(try await fixture.store.loadCredentials() == stored)

                let stale = try await Self.git("reject", fixture, extra: "username=oauth2\npassword=an-older-token")
                #expect(stale.status == 0, "\(stale.stderr)")
                #expect(try await fixture.store.loadCredentials() == stored)
                #expect(fixture.server.stats.refreshGrants == 0)

                let reject = try await Self.git("reject", fixture, extra: "username=oauth2\npassword=\(stored.auth.accessToken)")
                #expect(reject.status == 0, "\(reject.stderr)")
                #expect(fixture.server.stats.refreshGrants == 1)
                let after = try #require(try await fixture.store.load())
                #expect(after.accessToken != stored.auth.accessToken && after.refreshToken != nil)
                let fill = try await Self.git("fill", fixture)
                #expect(Self.password(in: fill.stdout) == after.accessToken)
                #expect(fixture.server.stats.refreshGrants == 1)
            }
        }

        @Test("signed out: nothing for git, one line on stderr naming tokenctl login")
        func signedOut() async throws {
            try await NetworkFixture.with { fixture in
                let result = try await Self.git("fill", fixture)
                #expect(result.status != 0)
                #expect(Self.password(in: result.stdout) == nil)
                #expect(result.stderr.contains("tokenctl login"), "\(result.stderr)")
            }
        }
    }
}
