import Foundation
import KeyringTestSupport
import OAuthTestServer
import Testing
import TestSupport
import TokenAuth
import TokenCtlBase

extension TokenCtlNetworkTests {
    /// `tokenctl` reads the plain `token` call on a fresh item itself and runs everything else as `tokenctl-full`, the
    /// executable beside it. What happened is read from the server's counts and the item.
    @Suite("tokenctl hands every call but a fresh token read to tokenctl-full")
    struct TokenCtlHandOffTests {
        @Test("token on an expired item that records who signed in: one refresh, its id_token checked with the issuer's keys")
        func refreshWithIdentityCheck() async throws {
            try await NetworkFixture.with { fixture in
                try await signInWithOpenID(fixture)
                let before = try #require(try await fixture.store.loadCredentials())
                let subject = try #require(before.auth.identity?.subject)
                try await fixture.retimeStoredTokens(issuedAgo: 3600, expiringIn: -1)
                let grants = fixture.server.stats.refreshGrants
                let keyFetches = fixture.server.stats.jwksRequests

                let token = try await tokenctl(fixture.item("token"))
                #expect(token.status == 0, "\(token.stderr)")
                #expect(fixture.server.stats.refreshGrants == grants + 1, "one refresh, by one process")
                #expect(fixture.server.stats.jwksRequests > keyFetches, "the keys were fetched to check the id_token")
                #expect(fixture.server.stats.reuseDetections == 0)
                let after = try #require(try await fixture.store.loadCredentials())
                #expect(after.auth.accessToken != before.auth.accessToken)
                #expect(token.stdout == after.auth.accessToken + "\n")
                #expect(after.auth.identity?.subject == subject)
                #expect(after.auth.unverifiedIDToken == nil, "checked, not left pending")
            }
        }

        @Test("without tokenctl-full beside it: a fresh token is printed; a refresh and login exit 64 naming it, and nothing is sent or stored")
        func missingFullExecutable() async throws {
            try await NetworkFixture.with { fixture in
                try await signInWithOpenID(fixture)
                let alone = try TemporaryDirectory()
                let copy = alone.url.appendingPathComponent("tokenctl").path
                try FileManager.default.copyItem(atPath: try tokenctlPath(), toPath: copy)
                let fresh = try #require(try await fixture.store.loadCredentials())

                let read = try await runCommand(copy, fixture.item("token"), timeout: .seconds(30))
                #expect(read.status == 0, "\(read.stderr)")
                #expect(read.stdout == fresh.auth.accessToken + "\n", "read and printed by tokenctl alone")

                try await fixture.retimeStoredTokens(issuedAgo: 3600, expiringIn: -1)
                let stored = try #require(try await fixture.store.loadCredentials())
                let requests = fixture.server.stats.tokenRequests
                let token = try await runCommand(copy, fixture.item("token"), timeout: .seconds(30))
                #expect(token.status == 64)
                #expect(token.stdout.isEmpty)
                #expect(token.stderr.contains(FullCommand.executableName), "\(token.stderr)")
                let login = try await runCommand(
                    copy, TokenCtlSignInFlowTests.login(fixture, "--device"), timeout: .seconds(30))
                #expect(login.status == 64)
                #expect(login.stderr.contains(FullCommand.executableName), "\(login.stderr)")
                #expect(fixture.server.stats.tokenRequests == requests, "no refresh token was spent")
                #expect(try await fixture.store.loadCredentials() == stored)
            }
        }

        /// Signs in through the browser flow with `openid`, so that the item records the issuer, its key set and
        /// who signed in.
        private func signInWithOpenID(_ fixture: NetworkFixture) async throws {
            let (result, _) = try await tokenctlWithPlainBrowser(
                TokenCtlSignInFlowTests.login(fixture, "--scope", "openid read"))
            #expect(result.status == 0, "\(result.stderr)")
            let stored = try #require(try await fixture.store.loadCredentials())
            #expect(stored.client?.issuer == fixture.server.issuer)
            #expect(stored.client?.jwksURI != nil)
            #expect(stored.auth.identity != nil)
        }
    }
}
