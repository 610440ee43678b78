import ChildProcesses
import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth

extension TokenCtlNetworkTests {
    /// `tokenctl login --dpop-key tpm`, and each later command a process of its own signing with the key in the
    /// TPM: the software TPM scripts/test starts (swtpm, shared through tpm2-abrmd as `/dev/tpmrm0` shares a desktop's).
    /// scripts/test runs the suites named `*TPMEndToEnd*` alone, one test at a time; without `TPM2TOOLS_TCTI` this one
    /// fails, never skips.
    @Suite("tokenctl: the DPoP key in the TPM (TPMEndToEnd)", .timeLimit(.minutes(2)))
    struct TokenCtlTPMEndToEndTests {
        @Test("login --device --dpop --dpop-key tpm keeps the key in the TPM; status, request and refresh in other processes")
        func tpmKey() async throws {
            try #require(
                ProcessInfo.processInfo.environment["TPM2TOOLS_TCTI"].map { !$0.isEmpty } == true,
                "TPM2TOOLS_TCTI is not set: run the tests with scripts/test, which starts swtpm and tpm2-abrmd")
            try await NetworkFixture.with(dpop: true) { fixture in
                fixture.server.deviceFlow.interval = 1
                let login = try await TokenCtlDPoPTests.signIn(fixture, ["--dpop", "--dpop-key", "tpm"])
                #expect(login.status == 0, "\(login.stderr)")
                let stored = try #require(try await fixture.store.loadCredentials()).auth
                let key = try #require(stored.proofKey)
                #expect(key.kind == .tpm && stored.tokenType == "DPoP")
                #expect(fixture.server.dpopThumbprint(ofToken: stored.accessToken) == key.thumbprint)

                let json = try await tokenctl(["status", "--service", fixture.service, "--json"])
                let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
                let dpop = try #require(rows.first?["dpop"] as? [String: Any])
                #expect(dpop["jkt"] as? String == key.thumbprint && dpop["in_tpm"] as? Bool == true, "\(json.stdout)")
                #expect(!json.stdout.contains(key.material))

                let request = try await tokenctl(fixture.item("request", fixture.server.resourceURL.absoluteString))
                #expect(request.status == 0, "\(request.stderr)")
                #expect(request.stdout.contains("\"token_type\":\"DPoP\""), "\(request.stdout)")

                let bound = fixture.server.stats.dpopBoundGrants
                let refresh = try await tokenctl(fixture.item("refresh"))
                #expect(refresh.status == 0, "\(refresh.stderr)")
                #expect(fixture.server.stats.dpopBoundGrants == bound + 1)
                let refreshed = try #require(try await fixture.store.loadCredentials()).auth
                #expect(refreshed.accessToken != stored.accessToken && refreshed.proofKey == key)
                #expect(fixture.server.dpopThumbprint(ofToken: refreshed.accessToken) == key.thumbprint)
                #expect(fixture.server.stats.dpopProofRefusals == 0)
            }
        }
    }
}
