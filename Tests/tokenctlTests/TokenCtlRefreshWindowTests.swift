import Foundation
import KeyringTestSupport
import OAuthTestServer
import TestSupport
import Testing
import TokenAuth

extension TokenCtlNetworkTests {
    /// The window between spending a refresh token and storing its successor, against a server that rotates refresh
    /// tokens and revokes the whole grant when a retired one comes back. Each fault is made at a moment the test
    /// chooses — the server holds the grant's answer — and the outcome is read from what the server counted (grants,
    /// reuse detections, revocations) and what the item holds.
    @Suite("tokenctl: a session survives every fault between spending a refresh token and storing its successor")
    struct TokenCtlRefreshWindowTests {
        @Test(
            "tokenctl stopped by SIGTERM, SIGHUP or SIGKILL while its grant is at the server: the answer is stored, no reuse",
            arguments: [SIGTERM, SIGHUP, SIGKILL])
        func stoppedWhileGranting(signal: Int32) async throws {
            try await NetworkFixture.with { fixture in
                let running = try await fixture.startTokenCallHeldAtTheGrant()
                kill(running.pid, signal)
                fixture.server.releaseTokenAnswers()
                let stopped = await running.finish()
                #expect(stopped.status == -1, "ended by the signal, once the answer was stored: \(stopped.stderr)")

                let after = try await tokenctl(fixture.item("token"))
                #expect(after.status == 0, "\(after.stderr)")
                let stored = try #require(try await fixture.store.loadCredentials())
                #expect(after.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == stored.auth.accessToken)
                // SIGTERM and SIGHUP end it once the answer is stored, before it prints; after a SIGKILL of the
                // process the caller started, the refresh that outlived it may still print the stored token.
                let printed = stopped.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(signal == SIGKILL ? [stored.auth.accessToken, ""].contains(printed) : printed.isEmpty)
                #expect(stored.auth.refreshStartedAt == nil)
                #expect(fixture.server.stats.refreshGrants == 1, "the stopped call's grant, stored; none since")
                #expect(fixture.server.stats.reuseDetections == 0)
            }
        }

        @Test("the refreshing child runs in a session and process group of its own, not in the caller's")
        func childInASessionOfItsOwn() async throws {
            try await NetworkFixture.with { fixture in
                let running = try await fixture.startTokenCallHeldAtTheGrant()
                // The child sent the grant, so it exists: the one process whose parent is the supervisor.
                let children = try ProcessStat.all().filter { $0.parent == running.pid }
                fixture.server.releaseTokenAnswers()
                let finished = await running.finish()
                #expect(finished.status == 0, "\(finished.stderr)")
                let child = try #require(children.first, "no child of \(running.pid)")
                #expect(children.count == 1)
                let callers = try ProcessStat.own().session
                #expect(child.session == child.pid, "a session of its own, not the caller's (\(callers))")
                #expect(child.group == child.pid)
            }
        }

        @Test("a SIGTERM that reaches tokenctl before its refreshing child exists ends the call; the next refreshes once")
        func stoppedBeforeTheChildStarts() async throws {
            try await NetworkFixture.with { fixture in
                try await fixture.login()
                try await fixture.retimeStoredTokens(issuedAgo: 3600, expiringIn: -1)
                // The SIGTERM is pending when tokenctl starts: blocked and sent before the exec, as one that arrives
                // while the mask of a parent that spawns from a libdispatch thread (Foundation's Process) still blocks
                // it. The supervisor gets it as it unblocks the signal, before its child exists.
                let pending = """
                    import os, signal, sys
                    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
                    os.kill(os.getpid(), signal.SIGTERM)
                    os.execv(sys.argv[1], sys.argv[1:])
                    """
                let stopped = try await runCommand("/usr/bin/python3", ["-c", pending, try tokenctlPath()] + fixture.item("token"))
                #expect(stopped.status == -1, "ended by the signal, not run to the end: \(stopped.stderr)")
                #expect(stopped.stdout.isEmpty)

                let after = try await tokenctl(fixture.item("token"))
                #expect(after.status == 0, "\(after.stderr)")
                #expect(fixture.server.stats.refreshGrants == 1)
                #expect(fixture.server.stats.reuseDetections == 0)
            }
        }

        @Test("two processes, one without XDG_RUNTIME_DIR and with another XDG_CACHE_HOME, take one lock: 1 grant")
        func lockIgnoresTheEnvironment() async throws {
            try await NetworkFixture.with { fixture in
                let first = try await fixture.startTokenCallHeldAtTheGrant()
                let cache = try TemporaryDirectory()
                let second = try startCommand(
                    try tokenctlPath(), fixture.item("token"),
                    environment: [
                        "XDG_RUNTIME_DIR": nil, "XDG_CACHE_HOME": cache.url.path, "TOKENCTL_LOG_LEVEL": "debug",
                    ])
                let waited = try await second.waitForStderr(containing: TokenCtlSharedSessionTests.waitingForLock)
                fixture.server.releaseTokenAnswers()
                let (a, b) = (await first.finish(), await second.finish())
                #expect(waited, "the process without XDG_RUNTIME_DIR waited for the other's lock")
                #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
                #expect(a.stdout == b.stdout)
                #expect(fixture.server.stats.refreshGrants == 1)
                #expect(fixture.server.stats.reuseDetections == 0)
            }
        }

        @Test(
            "a dead refresh token, answered with invalid_grant or a bare 400: sign-in required, recorded, never sent again",
            arguments: OAuthTestServer.DeadRefreshTokenAnswer.allCases)
        func deadRefreshToken(answer: OAuthTestServer.DeadRefreshTokenAnswer) async throws {
            try await NetworkFixture.with(deadRefreshTokenAnswer: answer) { fixture in
                try await fixture.login()
                try await fixture.retimeStoredTokens(issuedAgo: 3600, expiringIn: -1)
                fixture.server.updateFaults { $0.invalidGrantRefreshes = 1 }

                let first = try await tokenctl(fixture.item("token"))
                #expect(first.status == 3, "\(first.stderr)")
                if answer == .emptyBadRequest {
                    // The server said nothing: the client's explanation is never quoted as the server's.
                    #expect(!first.stderr.contains("The server said"), "\(first.stderr)")
                    #expect(first.stderr.contains("HTTP 400 and no OAuth error"), "\(first.stderr)")
                }
                for command in ["token", "refresh", "token", "token", "token"] {
                    let again = try await tokenctl(fixture.item(command))
                    #expect(again.status == 3, "\(command): \(again.stderr)")
                }
                #expect(fixture.server.stats.refreshGrants == 1, "the refused refresh token is never sent again")
                let request = try await tokenctl(fixture.item("request", fixture.server.resourceURL.absoluteString))
                #expect(request.status == 3)
                #expect(fixture.server.stats.refreshGrants == 1)

                let status = try await tokenctl(["status", "--service", fixture.service, "--no-prompt"])
                #expect(status.stdout.contains("sign-in required"), "\(status.stdout)")
                let show = try await tokenctl(fixture.item("show"))
                #expect(show.stdout.hasPrefix("sign-in required: the authorization server refused the refresh token"))
                #expect(try await fixture.store.loadCredentials()?.auth.refreshToken == nil)
            }
        }
    }
}
