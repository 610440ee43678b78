import ChildProcesses
import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth

extension TokenCtlNetworkTests {
    /// `tokenctl` with DPoP, against the test server with DPoP advertised, required of the client, and nonces: the
    /// contract of `login --dpop`, `--dpop-key`, `status`, `token`, `request` and `refresh`. Software keys: the TPM's
    /// are tested in TokenCtlTPMEndToEndTests, run apart since the TPM's suites clear it.
    @Suite("tokenctl: tokens bound to a key (DPoP)", .timeLimit(.minutes(2)))
    struct TokenCtlDPoPTests {
        static func login(_ fixture: NetworkFixture, _ extra: String...) -> [String] {
            fixture.item("login", "--issuer", fixture.server.issuer.absoluteString, "--client-id", "test-client", "--device")
                + extra
        }

        /// Runs `login` with the device flow, approving its code as alice.
        static func signIn(_ fixture: NetworkFixture, _ extra: [String]) async throws -> ChildResult {
            async let running = tokenctl(login(fixture) + extra)
            try await waitUntil("a device code was issued") { !fixture.server.pendingUserCodes.isEmpty }
            #expect(fixture.server.decide(userCode: try #require(fixture.server.pendingUserCodes.first), .approve(subject: "alice")))
            return try await running
        }

        @Test("login --device --dpop binds the tokens; status shows the key; token warns; request and refresh prove it")
        func contract() async throws {
            try await NetworkFixture.with(dpop: true) { fixture in
                fixture.server.deviceFlow.interval = 1
                let login = try await Self.signIn(fixture, ["--dpop", "--dpop-key", "software"])
                #expect(login.status == 0, "\(login.stderr)")
                let stored = try #require(try await fixture.store.loadCredentials()).auth
                let key = try #require(stored.proofKey)
                #expect(key.kind == .software && stored.tokenType == "DPoP")
                #expect(fixture.server.dpopThumbprint(ofToken: stored.accessToken) == key.thumbprint)

                let status = try await tokenctl(["status", "--service", fixture.service])
                #expect(status.status == 0, "\(status.stderr)")
                #expect(status.stdout.contains("DPoP: key jkt=\(key.thumbprint), stored in the item"), "\(status.stdout)")
                let json = try await tokenctl(["status", "--service", fixture.service, "--json"])
                let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
                let dpop = try #require(rows.first?["dpop"] as? [String: Any])
                #expect(dpop["jkt"] as? String == key.thumbprint && dpop["in_tpm"] as? Bool == false)

                let token = try await tokenctl(fixture.item("token"))
                #expect(token.status == 0, "\(token.stderr)")
                #expect(token.stdout == stored.accessToken + "\n")
                #expect(token.stderr.contains("bound to a key (DPoP)"), "\(token.stderr)")

                let show = try await tokenctl(fixture.item("show"))
                #expect(show.stdout.contains("DPoP key:       jkt=\(key.thumbprint), stored in the item"), "\(show.stdout)")
                let shown = try #require(try JSONSerialization.jsonObject(with: Data(try await tokenctl(fixture.item("show", "--json")).stdout.utf8)) as? [String: Any])
                let shownKey = try #require(shown["dpop"] as? [String: Any])
                #expect(shownKey["jkt"] as? String == key.thumbprint && shownKey["in_tpm"] as? Bool == false)
                #expect(shownKey["tokens_bound"] as? Bool == true)

                for output in [
                    status, json, token, show, try await tokenctl(fixture.item("show", "--json")),
                    try await tokenctl(["list", "--service", fixture.service]),
                ] {
                    #expect(!output.stdout.contains(key.material) && !output.stderr.contains(key.material))
                }

                // Two processes, each its first request without a nonce, the server rotating it between them.
                let challenges = fixture.server.stats.dpopNonceChallenges
                let first = try await tokenctl(fixture.item("request", fixture.server.resourceURL.absoluteString))
                #expect(first.status == 0, "\(first.stderr)")
                #expect(first.stdout.contains("\"token_type\":\"DPoP\""), "\(first.stdout)")
                fixture.server.rotateDPoPNonce()
                let second = try await tokenctl(fixture.item("request", fixture.server.resourceURL.absoluteString))
                #expect(second.status == 0, "\(second.stderr)")
                #expect(fixture.server.stats.dpopNonceChallenges == challenges + 2)

                // A new process knows no nonce: its refresh is asked for one, then answered once.
                let (bound, nonceChallenges) = (fixture.server.stats.dpopBoundGrants, fixture.server.stats.dpopNonceChallenges)
                let refresh = try await tokenctl(fixture.item("refresh"))
                #expect(refresh.status == 0, "\(refresh.stderr)")
                #expect(fixture.server.stats.dpopBoundGrants == bound + 1)
                #expect(fixture.server.stats.dpopNonceChallenges == nonceChallenges + 1)
                #expect(fixture.server.stats.refreshGrants == 2, "the grant asked for a nonce, and the one answered")
                let refreshed = try #require(try await fixture.store.loadCredentials()).auth
                #expect(refreshed.accessToken != stored.accessToken && refreshed.proofKey == key)
                #expect(fixture.server.dpopThumbprint(ofToken: refreshed.accessToken) == key.thumbprint)
                #expect(fixture.server.stats.dpopProofRefusals == 0)
            }
        }

        @Test("login --client-credentials --dpop binds the client's tokens; once expired, the same grant renews them with the key")
        func clientCredentials() async throws {
            try await NetworkFixture.with(dpop: true) { fixture in
                let login = try await tokenctl(
                    fixture.item(
                        "login", "--token-url", fixture.server.tokenEndpoint.absoluteString, "--client-id", "vault",
                        "--client-secret-stdin", "--client-credentials", "--dpop", "--dpop-key", "software"),
                    stdin: NetworkFixture.clientSecret + "\n")
                #expect(login.status == 0, "\(login.stderr)")
                let stored = try #require(try await fixture.store.loadCredentials()).auth
                let key = try #require(stored.proofKey)
                #expect(stored.tokenType == "DPoP" && stored.refreshToken == nil)
                #expect(fixture.server.dpopThumbprint(ofToken: stored.accessToken) == key.thumbprint)

                // Expired: `request` renews with the client credentials grant, proved by the same key, then sends.
                try await fixture.retimeStoredTokens(issuedAgo: 3600, expiringIn: -1)
                let bound = fixture.server.stats.dpopBoundGrants
                let request = try await tokenctl(fixture.item("request", fixture.server.resourceURL.absoluteString))
                #expect(request.status == 0, "\(request.stderr)")
                #expect(fixture.server.stats.clientCredentialsGrants >= 2)
                #expect(fixture.server.stats.dpopBoundGrants == bound + 1)
                let renewed = try #require(try await fixture.store.loadCredentials()).auth
                #expect(renewed.accessToken != stored.accessToken && renewed.proofKey == key)
                #expect(fixture.server.dpopThumbprint(ofToken: renewed.accessToken) == key.thumbprint)
            }
        }

        @Test("status says when the server answered the proofs with Bearer tokens, the key kept for refreshes")
        func bearerTokensWithAKey() async throws {
            try await NetworkFixture.with(dpop: true) { fixture in
                let key = ProofKey(kind: .software, thumbprint: "jkt-1", material: "private-material")
                try await fixture.store.save(StoredCredentials(auth: Auth(
                    accessToken: "at", tokenType: "Bearer", refreshToken: "rt", expiresAt: Date().addingTimeInterval(3600),
                    proofKey: key)))
                let status = try await tokenctl(["status", "--service", fixture.service])
                #expect(status.stdout.contains("DPoP key jkt=jkt-1, stored in the item; the server answered with Bearer"), "\(status.stdout)")
                #expect(!status.stdout.contains("private-material"))
            }
        }

        @Test("without --dpop, DPoP is chosen where discovery lists ES256")
        func chosenByDiscovery() async throws {
            try await NetworkFixture.with(dpop: true) { fixture in
                fixture.server.deviceFlow.interval = 1
                let login = try await Self.signIn(fixture, ["--dpop-key", "software"])
                #expect(login.status == 0, "\(login.stderr)")
                #expect(try await fixture.store.loadCredentials()?.auth.proofKey != nil)
            }
        }

        @Test("--dpop at an issuer that does not list ES256, with --tokens-stdin, or a bad --dpop-key: exit 64 naming it, nothing sent or stored")
        func refusals() async throws {
            try await NetworkFixture.with { fixture in
                let unsupported = try await tokenctl(Self.login(fixture, "--dpop"))
                #expect(unsupported.status == 64, "\(unsupported.stderr)")
                #expect(unsupported.stderr.contains("DPoP"), "\(unsupported.stderr)")
                let badKey = try await tokenctl(Self.login(fixture, "--dpop-key", "hsm"))
                #expect(badKey.status == 64)
                #expect(badKey.stderr.contains("--dpop-key"), "\(badKey.stderr)")
                let imported = try await tokenctl(
                    fixture.item("login", "--token-url", fixture.server.tokenEndpoint.absoluteString, "--client-id",
                                 "test-client", "--tokens-stdin", "--dpop"),
                    stdin: fixture.expiredBundle() + "\n")
                #expect(imported.status == 64)
                #expect(imported.stderr.contains("--tokens-stdin"), "\(imported.stderr)")
                #expect(fixture.server.stats.tokenRequests == 0)
                #expect(fixture.server.pendingUserCodes.isEmpty)
                #expect(try await fixture.store.loadCredentials() == nil)
            }
        }
    }
}
