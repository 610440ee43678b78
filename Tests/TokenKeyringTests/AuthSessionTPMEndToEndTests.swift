import ChildProcesses
import Foundation
import HTTPTypes
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenKeyring

/// DPoP with the key in the TPM, as a desktop has it: an app's `AuthSession` with its default key provider, and
/// `tokenctl` processes beside it, sharing the software TPM that scripts/test starts (swtpm) through tpm2-abrmd, as
/// processes share a TPM through the kernel's `/dev/tpmrm0`. Without `TPM2TOOLS_TCTI` the test fails, never skips.
///
/// scripts/test runs the suites named `*TPMEndToEnd*` alone, one test at a time, with `TokenAuthTPMTests`: this one
/// clears the TPM, which makes every key in it useless.
@Suite("AuthSession: the DPoP key in the TPM, shared with tokenctl (TPMEndToEnd)", .needsSecretService,
       .serialized, .timeLimit(.minutes(3)))
struct AuthSessionTPMEndToEndTests {
    /// `TPM2TOOLS_TCTI`, or a failed test.
    static func tcti() throws -> String {
        try #require(
            ProcessInfo.processInfo.environment["TPM2TOOLS_TCTI"].flatMap { $0.isEmpty ? nil : $0 },
            "TPM2TOOLS_TCTI is not set: run the tests with scripts/test, which starts swtpm and tpm2-abrmd")
    }

    /// The app's session, with the default key provider: `MachineProofKeys`, which picks the TPM where one answers.
    static func session(_ server: OAuthTestServer, service: String) -> AuthSession {
        AuthSession(
            configuration: .init(
                provider: .issuer(server.issuer), clientID: "test-client", scope: "openid read", service: service,
                keyring: TestKeyring.keyring, transport: URLSessionHTTPTransport(timeout: .seconds(60))),
            browserEnvironment: ["DISPLAY": ":0"])
    }

    @Test("signed in with a TPM key; tokenctl processes and the app refresh once together; a cleared TPM asks for a sign-in")
    func sharedTPMKey() async throws {
        _ = try Self.tcti()
        let tokenctl = try #require(BuiltExecutable.path("tokenctl"), "no tokenctl: run `swift build --build-tests`")
        try await withServer(AuthSessionDPoPTests.dpopServer()) { server in
            let service = TestKeyring.uniqueService()
            try await AuthSessionTests.cleaningService(service) {
                let session = Self.session(server, service: service)
                let account = try await signInThroughTheBrowser(session)
                let auth = try await AuthSessionDPoPTests.stored(service)
                let key = try #require(auth.proofKey)
                #expect(key.kind == .tpm, "auto picks the TPM where one answers")
                #expect(server.dpopThumbprint(ofToken: auth.accessToken) == key.thumbprint)
                #expect(server.dpopThumbprint(ofToken: try #require(auth.refreshToken)) == key.thumbprint)
                // What the item holds is not a key a software signer can use: only this TPM signs with it.
                await #expect(throws: TokenAuthError.self) { _ = try await SoftwareProofKeys().signer(for: key) }

                let api = try await session.client()
                #expect(try await api.send(HTTPRequest(method: .get, url: server.resourceURL)).0.status == .ok)

                let item = ["--service", service, "--account", account.name, "--no-prompt"]
                let status = try await runCommand(tokenctl, ["status", "--service", service])
                #expect(status.stdout.contains("DPoP: key jkt=\(key.thumbprint), in the TPM"), "\(status.stdout)")

                // The access token is revoked: three tokenctl processes and the app ask at once, each signing with
                // the TPM through its own connection. One refresh among them, with a proof of the same key.
                try await revoke(auth.accessToken, at: server)
                let boundGrants = server.stats.dpopBoundGrants
                let url = server.resourceURL.absoluteString
                async let first = runCommand(tokenctl, ["request"] + item + [url])
                async let second = runCommand(tokenctl, ["request"] + item + [url])
                async let third = runCommand(tokenctl, ["request"] + item + [url])
                async let app = api.send(HTTPRequest(method: .get, url: server.resourceURL))
                for result in try await [first, second, third] {
                    #expect(result.status == 0, "\(result.stderr)")
                    #expect(result.stdout.contains("\"token_type\":\"DPoP\""), "\(result.stdout)")
                }
                #expect(try await app.0.status == .ok)
                #expect(server.stats.dpopBoundGrants == boundGrants + 1, "one refresh for three processes and the app")
                #expect(server.stats.reuseDetections == 0)
                #expect(server.stats.dpopProofRefusals == 0)
                let refreshed = try await AuthSessionDPoPTests.stored(service)
                #expect(refreshed.proofKey == key && refreshed.accessToken != auth.accessToken)
                #expect(server.dpopThumbprint(ofToken: refreshed.accessToken) == key.thumbprint)

                // The TPM is cleared (a new owner seed): its old keys cannot be loaded. A new process of the app and
                // tokenctl both say a sign-in is needed; the item is kept, and nothing is sent without a proof.
                try await clearTPM()
                let requestsBefore = server.stats.resourceRequests
                let relaunched = Self.session(server, service: service)
                let error = await #expect(throws: TokenAuthError.self) {
                    _ = try await relaunched.client().send(HTTPRequest(method: .get, url: server.resourceURL))
                }
                #expect(error?.code == .proofKeyUnusable, "\(String(describing: error))")
                #expect(error?.isLoginRequired == true)
                let refused = try await runCommand(tokenctl, ["request"] + item + [url])
                #expect(refused.status == 3, "\(refused.stderr)")
                #expect(refused.stderr.contains("Sign in again"), "\(refused.stderr)")
                #expect(server.stats.resourceRequests == requestsBefore)
                #expect(try await AuthSessionDPoPTests.stored(service).refreshToken == refreshed.refreshToken)

                // A sign-in makes a new key in the cleared TPM, and the session works again.
                try await signInThroughTheBrowser(relaunched)
                let renewed = try #require(try await AuthSessionDPoPTests.stored(service).proofKey)
                #expect(renewed.kind == .tpm && renewed.thumbprint != key.thumbprint)
                #expect(try await relaunched.client().send(HTTPRequest(method: .get, url: server.resourceURL)).0.status == .ok)
            }
        }
    }

    /// TPM2_Clear with tpm2-tools, through the same TPM (the lockout hierarchy's auth is empty on swtpm).
    func clearTPM() async throws {
        let cleared = try await runCommand("/usr/bin/tpm2_clear", ["-T", try Self.tcti()])
        try #require(cleared.status == 0, "tpm2_clear failed: \(cleared.stderr)")
    }
}
