import Foundation
import HTTPTypes
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenKeyring

/// DPoP through the session object, against the test server with DPoP required, nonces on, and the real keyring: the
/// tokens are bound to a key made at sign-in, kept in the item, used by every session of the item and by refreshes,
/// and gone with the item at sign-out.
@Suite("AuthSession: tokens bound to a key (DPoP)", .needsSecretService, .timeLimit(.minutes(2)))
struct AuthSessionDPoPTests {
    /// A server that advertises DPoP, requires it of `test-client` and demands nonces.
    static func dpopServer(advertises: Bool = true, nonces: Bool = true) -> OAuthTestServer.Configuration {
        var configuration = OAuthTestServer.Configuration(
            clients: [OAuthTestServer.RegisteredClient(id: "test-client", requiresDPoP: advertises)])
        configuration.advertisesDPoP = advertises
        configuration.dpopNonces = nonces
        return configuration
    }

    static func session(
        _ server: OAuthTestServer, service: String, proofOfPossession: AuthSession.ProofOfPossession = .automatic
    ) -> AuthSession {
        AuthSession(
            configuration: .init(
                provider: .issuer(server.issuer), clientID: "test-client", scope: "openid read", service: service,
                keyring: TestKeyring.keyring, transport: URLSessionHTTPTransport(timeout: .seconds(60)),
                // Software keys: the TPM is the TPM suites' (AuthSessionTPMEndToEndTests), which clear it.
                proofOfPossession: proofOfPossession, proofKeys: SoftwareProofKeys()),
            browserEnvironment: ["DISPLAY": ":0"])
    }

    /// The stored bundle of the session's only account.
    static func stored(_ service: String) async throws -> Auth {
        let accounts = try await KeyringAuthStore.accounts(of: service, keyring: TestKeyring.keyring)
        try #require(accounts.count == 1)
        let store = KeyringAuthStore(
            service: service, account: try #require(accounts[0].attributes["account"]), keyring: TestKeyring.keyring)
        return try #require(try await store.loadCredentials()).auth
    }

    @Test("a browser sign-in binds the tokens to a new key; requests, a nonce rotation and a refresh all prove it")
    func browserSignIn() async throws {
        try await withServer(Self.dpopServer()) { server in
            let service = TestKeyring.uniqueService()
            try await AuthSessionTests.cleaningService(service) {
                let session = Self.session(server, service: service)
                try await signInThroughTheBrowser(session)
                let auth = try await Self.stored(service)
                let key = try #require(auth.proofKey)
                #expect(auth.tokenType == "DPoP")
                #expect(key.kind == .software)
                #expect(server.dpopThumbprint(ofToken: auth.accessToken) == key.thumbprint)
                #expect(server.dpopThumbprint(ofToken: try #require(auth.refreshToken)) == key.thumbprint)
                #expect(!"\(auth)".contains(key.material))

                let api = try await session.client()
                let (first, body) = try await api.send(HTTPRequest(method: .get, url: server.resourceURL))
                #expect(first.status == .ok)
                #expect(String(decoding: body, as: UTF8.self).contains("\"token_type\":\"DPoP\""))

                // Another process rotates the nonce: the next request is asked for it once, and goes through.
                let challengesBefore = server.stats.dpopNonceChallenges
                server.rotateDPoPNonce()
                #expect(try await api.send(HTTPRequest(method: .get, url: server.resourceURL)).0.status == .ok)
                #expect(server.stats.dpopNonceChallenges == challengesBefore + 1)

                // The access token is revoked: one refresh with a proof from the same key, and the request goes through.
                try await revoke(auth.accessToken, at: server)
                #expect(try await api.send(HTTPRequest(method: .get, url: server.resourceURL)).0.status == .ok)
                #expect(server.stats.refreshGrants == 1)
                let refreshed = try await Self.stored(service)
                #expect(refreshed.proofKey == key)
                #expect(refreshed.accessToken != auth.accessToken)
                #expect(server.dpopThumbprint(ofToken: refreshed.accessToken) == key.thumbprint)
                #expect(server.stats.dpopProofRefusals == 0)

                // A second session of the item (another process) signs with the same stored key.
                let relaunched = Self.session(server, service: service)
                #expect(try await relaunched.client().send(HTTPRequest(method: .get, url: server.resourceURL)).0.status == .ok)
                #expect(server.stats.refreshGrants == 1)
                #expect(server.stats.dpopProofRefusals == 0)

                // Sign-out deletes the item, key and all.
                #expect(try await session.signOut().deleted)
                #expect(try await KeyringAuthStore.accounts(of: service, keyring: TestKeyring.keyring).isEmpty)
            }
        }
    }

    @Test("a device sign-in binds the tokens; the next sign-in makes a new key")
    func deviceSignIn() async throws {
        try await withServer(Self.dpopServer()) { server in
            let service = TestKeyring.uniqueService()
            try await AuthSessionTests.cleaningService(service) {
                let session = Self.session(server, service: service)
                var thumbprints: [String] = []
                for _ in 0..<2 {
                    let model = CodeModel()
                    let signIn = Task { @MainActor in try await model.signIn(session) }
                    try await waitUntil("the code to be shown") { await !model.code.isEmpty }
                    #expect(try await approve(await model.code, at: server) == 200)
                    _ = try await signIn.value
                    let auth = try await Self.stored(service)
                    let key = try #require(auth.proofKey)
                    #expect(server.dpopThumbprint(ofToken: auth.accessToken) == key.thumbprint)
                    thumbprints.append(key.thumbprint)
                    #expect(try await session.client().send(HTTPRequest(method: .get, url: server.resourceURL)).0.status == .ok)
                }
                #expect(Set(thumbprints).count == 2)
                #expect(server.stats.dpopBoundGrants == 2)
            }
        }
    }

    @Test("automatic at an issuer without DPoP signs in with bearer tokens; off does at one with it")
    func bearerWhereNotChosen() async throws {
        for (advertises, choice) in [(false, AuthSession.ProofOfPossession.automatic), (true, .off)] {
            var configuration = Self.dpopServer(advertises: advertises, nonces: false)
            configuration.clients = [OAuthTestServer.RegisteredClient(id: "test-client")]
            try await withServer(configuration) { server in
                let service = TestKeyring.uniqueService()
                try await AuthSessionTests.cleaningService(service) {
                    try await signInThroughTheBrowser(Self.session(server, service: service, proofOfPossession: choice))
                    let auth = try await Self.stored(service)
                    #expect(auth.proofKey == nil, "\(choice)")
                    #expect(auth.tokenType == "Bearer", "\(choice)")
                    #expect(server.stats.dpopBoundGrants == 0)
                }
            }
        }
    }

    @Test("required at an issuer that does not list ES256 fails with a sentence naming DPoP, and stores nothing")
    func requiredWithoutSupport() async throws {
        try await withServer(Self.dpopServer(advertises: false, nonces: false)) { server in
            let service = TestKeyring.uniqueService()
            try await AuthSessionTests.cleaningService(service) {
                let session = Self.session(server, service: service, proofOfPossession: .required)
                let error = await #expect(throws: TokenAuthError.self) { try await signInThroughTheBrowser(session) }
                #expect(error?.isMisconfiguration == true)
                #expect(error.map { "\($0)".contains("DPoP") } == true)
                let accounts = try await KeyringAuthStore.accounts(of: service, keyring: TestKeyring.keyring)
                #expect(accounts.isEmpty)
                #expect(server.stats.tokenRequests == 0)
            }
        }
    }
}

/// Which key providers `bootstrap()`'s refreshing process signs for: the others refresh in the app's process.
@Suite("AuthSession.bootstrap() and DPoP key providers")
struct RefreshProcessKeyProviderTests {
    struct OwnKeys: ProofKeyProvider {
        func makeKey() async throws -> ProofKey { ProofKey(kind: ProofKey.Kind(rawValue: "hsm"), thumbprint: "t", material: "m") }
        func signer(for key: ProofKey) async throws -> any DPoPSigner { throw TokenAuthError.proofKeyUnusable("not here") }
    }

    @Test("software keys and the process's own MachineProofKeys refresh apart; another TPM or a provider of the app's own do not")
    func providers() {
        #expect(RefreshProcess.signsWith(SoftwareProofKeys()))
        #expect(RefreshProcess.signsWith(MachineProofKeys()))
        #expect(!RefreshProcess.signsWith(MachineProofKeys(environment: ["TPM2TOOLS_TCTI": "swtpm:host=192.0.2.1,port=9"])))
        #expect(!RefreshProcess.signsWith(OwnKeys()))
    }

    @Test("required: a sign-in answered with bearer tokens is refused in a sentence naming DPoP; DPoP tokens pass")
    func requiredBinding() throws {
        let session = AuthSession(configuration: .init(
            provider: .issuer(URL(string: "https://auth.example.com")!), clientID: "app", service: "s",
            proofOfPossession: .required, proofKeys: SoftwareProofKeys()))
        let key = ProofKey(kind: .software, thumbprint: "t", material: "m")
        let bearer = StoredCredentials(auth: Auth(accessToken: "a", tokenType: "Bearer", proofKey: key))
        let error = #expect(throws: TokenAuthError.self) { try session.checkBinding(of: bearer) }
        #expect(error?.isMisconfiguration == true && error.map { "\($0)".contains("DPoP") } == true)
        #expect(throws: Never.self) {
            try session.checkBinding(of: StoredCredentials(auth: Auth(accessToken: "a", tokenType: "dpop", proofKey: key)))
        }
    }
}
