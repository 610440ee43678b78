import Foundation
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
@testable import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn
import TokenAuthURLSession

@Suite("Microsoft's multi-tenant issuer: metadata naming a {tenantid} template, each id_token checked with its tid",
       .timeLimit(.minutes(2)))
struct MicrosoftTenantTests {
    static let transport = URLSessionHTTPTransport(timeout: .seconds(60))
    static let tenantA = "11111111-2222-3333-4444-555555555555"
    static let tenantB = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"

    /// The server as Microsoft's `common` endpoint: issuer path `/common/v2.0`, ada in tenant A, bob in tenant B,
    /// and no RFC 9207 `iss` in authorization responses (Microsoft sends none).
    static func actAsCommon(_ server: OAuthTestServer) {
        server.discovery.issuerPath = "/common/v2.0"
        server.discovery.tenantsByUser = ["ada": tenantA, "bob": tenantB]
        server.browserFlow.sendsIssuer = false
    }

    /// A browser sign-in as ada, with the server acting as `common`.
    static func browserSignInThroughCommon(_ server: OAuthTestServer, scope: String) async throws -> StoredCredentials {
        actAsCommon(server)
        let flow = try BrowserSignIn(
            metadata: try await server.discoveredMetadata(), clientID: "test-client", transport: transport,
            clock: ManualClock())
        return try await flow.signIn(scope: scope) { try await PlainBrowser().open($0) }
    }

    static func tenantIssuer(_ server: OAuthTestServer, _ tenant: String) -> URL {
        URL(string: server.baseURL.absoluteString + "/\(tenant)/v2.0")!
    }

    @Test("the document for common names the template: accepted for common, the template kept for the sign-in")
    func templateAccepted() async throws {
        try await withServer { server in
            Self.actAsCommon(server)
            let metadata = try await server.discoveredMetadata()
            #expect(metadata.issuer == server.baseURL.absoluteString + "/common/v2.0")
            #expect(metadata.issuerTemplate == server.baseURL.absoluteString + "/{tenantid}/v2.0")
            #expect(metadata.client(id: "test-client").issuerTemplate == metadata.issuerTemplate)
            #expect(try IDTokenVerifier(metadata: metadata, clientID: "test-client").issuerTemplate == metadata.issuerTemplate)
        }
    }

    @Test(
        "a template the issuer asked for does not fill is a document for another issuer",
        arguments: [
            "/{tenantid}/v1.0", "/{tenantid}/{tenantid}/v2.0", "{tenantid}/v2.0", "/x{tenantid}/v2.0", "/{tenantid}",
        ])
    func templateRefused(path: String) async throws {
        try await withServer { server in
            Self.actAsCommon(server)
            server.discovery.advertisedIssuer = server.baseURL.absoluteString + path
            await expectSignInError(.issuerMismatch) { try await server.discoveredMetadata() }
            // Another host's template is never this issuer's.
            server.discovery.advertisedIssuer = "https://login.example.com/{tenantid}/v2.0"
            await expectSignInError(.issuerMismatch) { try await server.discoveredMetadata() }
        }
    }

    @Test("the template fills only with a tenant: one path segment of letters, digits, - and .")
    func templateFilling() throws {
        let template = try #require(TenantIssuerTemplate("https://login.microsoftonline.com/{tenantid}/v2.0"))
        #expect(template.filled(with: Self.tenantA) == "https://login.microsoftonline.com/\(Self.tenantA)/v2.0")
        for bad in ["", "a/b", "..", ".", "a b", "a%2Fb", "a?b", "é"] {
            #expect(template.filled(with: bad) == nil, "\(bad)")
        }
        #expect(template.matches("https://login.microsoftonline.com/organizations/v2.0"))
        #expect(!template.matches("https://login.microsoftonline.com/a/b/v2.0"))
        #expect(!template.matches("https://login.microsoftonline.com//v2.0"))
        #expect(TenantIssuerTemplate("http://login.example.com/{tenantid}/v2.0") == nil, "plain http off loopback")
        #expect(TenantIssuerTemplate("https://login.example.com/v2.0") == nil, "no placeholder")
        #expect(TenantIssuerTemplate.matchingNothing("nonsense").filled(with: Self.tenantA) == nil)
    }

    @Test("the template stands only for the aliases that serve several tenants: common, organizations, consumers")
    func templateMatchesAliasesOnly() throws {
        let template = try #require(TenantIssuerTemplate("https://login.microsoftonline.com/{tenantid}/v2.0"))
        for alias in ["common", "organizations", "consumers", "Common"] {
            #expect(template.matches("https://login.microsoftonline.com/\(alias)/v2.0"), "\(alias)")
        }
        for tenant in [Self.tenantA, "contoso.onmicrosoft.com", "commons", "tenant"] {
            #expect(!template.matches("https://login.microsoftonline.com/\(tenant)/v2.0"), "\(tenant)")
        }
    }

    @Test("one tenant's issuer whose document names the template is refused: it would let every tenant's tokens in")
    func templateRefusedForOneTenant() async throws {
        try await withServer { server in
            Self.actAsCommon(server)
            server.discovery.issuerPath = "/\(Self.tenantA)/v2.0"
            #expect(server.issuer.absoluteString.hasSuffix("/\(Self.tenantA)/v2.0"))
            await expectSignInError(.issuerMismatch) { try await server.discoveredMetadata() }
        }
    }

    @Test("browser sign-in through common: the identity and the client name ada's tenant, and no template is kept")
    func browserSignIn() async throws {
        try await withServer { server in
            let credentials = try await Self.browserSignInThroughCommon(server, scope: "openid")
            let tenantIssuer = Self.tenantIssuer(server, Self.tenantA)
            #expect(credentials.auth.identity?.issuer == tenantIssuer)
            #expect(credentials.auth.identity?.subject == OAuthTestServer.subjectIdentifier(ofUser: "ada"))
            #expect(credentials.client?.issuer == tenantIssuer)
            #expect(credentials.client?.issuerTemplate == nil)
            #expect(credentials.client?.tokenEndpoint == server.tokenEndpoint, "still common's endpoints")
        }
    }

    @Test("device sign-in through common: the approving user's tenant")
    func deviceSignIn() async throws {
        try await withServer { server in
            Self.actAsCommon(server)
            let device = try DeviceAuthorization(
                metadata: try await server.discoveredMetadata(), clientID: "test-client", transport: Self.transport,
                clock: ManualClock(advancingOnSleep: true))
            let credentials = try await device.signIn(scope: "openid") { prompt in
                server.decide(userCode: prompt.userCode, .approve(subject: "bob"))
            }
            #expect(credentials.auth.identity?.issuer == Self.tenantIssuer(server, Self.tenantB))
        }
    }

    @Test("id_tokens refused under the template: no tid, a tid that is no tenant, an iss of another tenant")
    func refusedTokens() async throws {
        try await withOpenID { fixture in
            let server = fixture.server
            Self.actAsCommon(server)
            let template = server.baseURL.absoluteString + "/{tenantid}/v2.0"
            let verifier = IDTokenVerifier(
                issuer: server.issuer, clientID: OpenIDFixture.clientID, jwksURI: server.jwksURI,
                issuerTemplate: template, transport: OpenIDFixture.transport, wallClock: fixture.clock.wallClock)
            var good = fixture.claims()
            good.tid = Self.tenantA
            good.iss = Self.tenantIssuer(server, Self.tenantA).absoluteString
            let claims = try await verifier.verify(await server.mintIDToken(good), nonce: nil)
            #expect(claims.tenantID == Self.tenantA)

            var cases: [(String, OAuthTestServer.MintedIDTokenClaims)] = []
            var noTenant = good
            noTenant.tid = nil
            cases.append(("no tid", noTenant))
            var badTenant = good
            badTenant.tid = "../\(Self.tenantA)"
            cases.append(("a path in tid", badTenant))
            var otherTenant = good
            otherTenant.tid = Self.tenantB
            cases.append(("iss of tenant A, tid of tenant B", otherTenant))
            var commonIssuer = good
            commonIssuer.iss = server.issuer.absoluteString
            cases.append(("iss of common itself", commonIssuer))
            for (name, claims) in cases {
                let error = await idTokenError { _ = try await verifier.verify(await server.mintIDToken(claims), nonce: nil) }
                #expect(error?.code == .wrongIssuer, "\(name)")
            }
        }
    }

    @Test("a refresh keeps the tenant: the stored tenant's id_token passes, another tenant's is refused")
    func refreshKeepsTenant() async throws {
        try await withServer { server in
            let credentials = try await Self.browserSignInThroughCommon(server, scope: "openid offline_access")
            let client = try #require(credentials.client)
            let identity = try #require(credentials.auth.identity)
            // What a later process builds from the stored item: no template, tenant A's issuer.
            let verifier = try #require(IDTokenVerifier(client: client, transport: Self.transport))
            let refresher = TokenEndpointClient(client: client, transport: Self.transport)
            var refreshToken = try #require(credentials.auth.refreshToken)

            let same = try await refresher.refresh(refreshToken: refreshToken)
            #expect(try await verifier.identity(afterRefresh: same, keeping: identity) == identity)
            refreshToken = same.refreshToken ?? refreshToken

            server.discovery.tenantsByUser = ["ada": Self.tenantB]
            let moved = try await refresher.refresh(refreshToken: refreshToken)
            let error = await idTokenError { _ = try await verifier.identity(afterRefresh: moved, keeping: identity) }
            #expect(error?.code == .wrongIssuer)

            // A verifier that still has the template (the signing-in process) refuses it as another tenant.
            let templated = try IDTokenVerifier(metadata: try await server.discoveredMetadata(), clientID: "test-client")
            let tenantError = await idTokenError { _ = try await templated.identity(afterRefresh: moved, keeping: identity) }
            #expect(tenantError?.code == .subjectChanged)
        }
    }
}
