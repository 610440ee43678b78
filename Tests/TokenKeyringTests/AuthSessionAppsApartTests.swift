import Foundation
import HTTPTypes
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenKeyring

/// A keyring item is the session of one (issuer, client ID, account): two apps at one issuer, two realms of one host
/// and two ports of one host each keep their own, and an app never sends tokens stored for another client.
@Suite("AuthSession: one session per app and provider", .needsSecretService, .timeLimit(.minutes(2)))
struct AuthSessionAppsApartTests {
    static let clients: [OAuthTestServer.RegisteredClient] = [.init(id: "app-a"), .init(id: "app-b")]

    /// A session made as Getting Started makes one: the issuer and the client ID, and every default.
    static func session(_ server: OAuthTestServer, clientID: String) -> AuthSession {
        AuthSession(
            issuer: server.issuer, clientID: clientID, scope: "openid read", keyring: TestKeyring.keyring,
            transport: URLSessionHTTPTransport(timeout: .seconds(60)))
    }

    /// Deletes every item of the services of `clientIDs` at `server`, and of the earlier default service's items that
    /// record `server`'s issuer, whatever happens in `body`.
    static func cleaning<T>(_ server: OAuthTestServer, _ clientIDs: [String], _ body: () async throws -> T) async throws -> T {
        try await cleaningUp({
            for clientID in clientIDs {
                let service = AuthSession.defaultService(issuer: server.issuer, clientID: clientID)
                for item in (try? await KeyringAuthStore.accounts(of: service, keyring: TestKeyring.keyring)) ?? [] {
                    _ = try? await TestKeyring.keyring.delete(item.attributes)
                }
            }
        }, body)
    }

    @Test("the default service is CLIENT_ID@HOST[:PORT][/PATH]: apps, realms and ports of one host apart")
    func defaultServices() {
        let realmA = URL(string: "https://sso.example.com/realms/a")!
        let realmB = URL(string: "https://sso.example.com/realms/b/")!
        let otherPort = URL(string: "https://sso.example.com:8443/realms/a")!
        #expect(AuthSession.defaultService(issuer: realmA, clientID: "app") == "app@sso.example.com/realms/a")
        #expect(AuthSession.defaultService(issuer: realmB, clientID: "app") == "app@sso.example.com/realms/b")
        #expect(AuthSession.defaultService(issuer: otherPort, clientID: "app") == "app@sso.example.com:8443/realms/a")
        let services = Set(
            [realmA, realmB, otherPort].flatMap { issuer in
                ["app", "other-app"].map { AuthSession.defaultService(issuer: issuer, clientID: $0) }
            })
        #expect(services.count == 6)
        #expect(AuthSession.defaultService(issuer: URL(string: "https://Auth.Example.com/")!, clientID: "app") == "app@auth.example.com")
    }

    @Test("two apps at one issuer: two items, their own tokens, refreshes apart; one signs out, the other stays")
    func twoAppsAtOneIssuer() async throws {
        var configuration = OAuthTestServer.Configuration()
        configuration.clients = Self.clients
        try await withServer(configuration) { server in
            try await Self.cleaning(server, ["app-a", "app-b"]) {
                let appA = Self.session(server, clientID: "app-a")
                let appB = Self.session(server, clientID: "app-b")
                try await signInThroughTheBrowser(appA)
                try await signInThroughTheBrowser(appB)
                let itemsA = try await KeyringAuthStore.accounts(
                    of: AuthSession.defaultService(issuer: server.issuer, clientID: "app-a"), keyring: TestKeyring.keyring)
                let itemsB = try await KeyringAuthStore.accounts(
                    of: AuthSession.defaultService(issuer: server.issuer, clientID: "app-b"), keyring: TestKeyring.keyring)
                #expect(itemsA.count == 1 && itemsB.count == 1, "one item per app")

                let tokenA = try await appA.validToken()
                let tokenB = try await appB.validToken()
                #expect(tokenA != tokenB, "app B's sign-in did not replace app A's tokens")

                // App A's token stops being accepted: A refreshes, once; B's session is not touched.
                let clientA = OAuthClient(
                    tokenEndpoint: server.tokenEndpoint, clientID: "app-a", revocationEndpoint: server.revocationEndpoint)
                try await TokenRevocationClient(client: clientA, transport: URLSessionHTTPTransport())?
                    .revoke(tokenA, hint: .accessToken)
                let (answer, _) = try await appA.client().send(HTTPRequest(method: .get, url: server.resourceURL))
                #expect(answer.status == .ok)
                #expect(server.stats.refreshGrants == 1)
                #expect(try await appB.validToken() == tokenB)
                #expect(server.stats.reuseDetections == 0)

                try await appB.signOut()
                #expect(await appB.state() == .signedOut)
                guard case .signedIn = await appA.state() else {
                    Issue.record("app A was signed out by app B's sign-out")
                    return
                }
                let (still, _) = try await appA.client().send(HTTPRequest(method: .get, url: server.resourceURL))
                #expect(still.status == .ok)
            }
        }
    }

    @Test("one client ID at two ports of one host: two items")
    func twoPorts() async throws {
        try await withServer { first in
            try await withServer { second in
                try await Self.cleaning(first, ["test-client"]) {
                    try await Self.cleaning(second, ["test-client"]) {
                        let one = Self.session(first, clientID: "test-client")
                        let other = Self.session(second, clientID: "test-client")
                        try await signInThroughTheBrowser(one)
                        #expect(await other.state() == .signedOut, "the other port's session is its own")
                        try await signInThroughTheBrowser(other)
                        #expect(try await one.validToken() != (try await other.validToken()))
                    }
                }
            }
        }
    }

    @Test("a service shared by two apps: the other app's tokens are refused on load and never sent")
    func sharedServiceRefused() async throws {
        var configuration = OAuthTestServer.Configuration()
        configuration.clients = Self.clients
        try await withServer(configuration) { server in
            let service = TestKeyring.uniqueService()
            try await AuthSessionTests.cleaningService(service) {
                func session(_ clientID: String) -> AuthSession {
                    AuthSession(configuration: .init(
                        provider: .issuer(server.issuer), clientID: clientID, scope: "openid read", service: service,
                        keyring: TestKeyring.keyring))
                }
                let appA = session("app-a")
                try await signInThroughTheBrowser(appA)
                let appB = session("app-b")
                guard case .signInRequired(_, let reason) = await appB.state() else {
                    Issue.record("app B took app A's item for its own session")
                    return
                }
                #expect(reason.contains("app-b"), "\(reason)")
                let error = await #expect(throws: TokenAuthError.self) { try await appB.validToken() }
                #expect(error?.code == .invalidClientConfiguration)
                #expect(error?.isMisconfiguration == true)
                #expect(error?.description.contains("\"app-a\"") == true, "\(String(describing: error))")
                await #expect(throws: TokenAuthError.self) { try await appB.client() }
                #expect(server.stats.refreshGrants == 0)
                #expect(server.stats.resourceRequests == 0)
                #expect(await appA.state() != .signedOut, "app A's item is still there")
            }
        }
    }

    @Test("items of the earlier default service (the issuer's host) are adopted by the app whose client they record only")
    func earlierItemsAdoptedByTheirOwnApp() async throws {
        var configuration = OAuthTestServer.Configuration()
        configuration.clients = Self.clients
        try await withServer(configuration) { server in
            let earlier = try #require(server.issuer.host)
            func earlierStore(_ account: String) -> KeyringAuthStore {
                KeyringAuthStore(service: earlier, account: account, keyring: TestKeyring.keyring)
            }
            try await cleaningUp({
                for account in ["alice-of-a", "bob-of-b"] { _ = try? await earlierStore(account).remove() }
            }) {
                try await Self.cleaning(server, ["app-a", "app-b"]) {
                    var written: [String: String] = [:]
                    for (account, clientID) in [("alice-of-a", "app-a"), ("bob-of-b", "app-b")] {
                        let issued = server.issueTokens(clientID: clientID, subject: account)
                        let client = OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: clientID, issuer: server.issuer)
                        var auth = Auth(accessToken: issued.accessToken, refreshToken: issued.refreshToken)
                        auth.expiresAt = Date(timeIntervalSinceNow: 3600)
                        try await earlierStore(account).signIn(StoredCredentials(auth: auth, client: client))
                        written[account] = issued.accessToken
                    }

                    let appA = Self.session(server, clientID: "app-a")
                    #expect(try await appA.accounts().map(\.name) == ["alice-of-a"], "app A adopted its own item only")
                    #expect(try await earlierStore("alice-of-a").loadCredentials() == nil, "moved, not copied")
                    #expect(try await earlierStore("bob-of-b").loadCredentials() != nil, "app B's item left for app B")
                    try await appA.switchAccount(to: "alice-of-a")
                    #expect(try await appA.validToken() == written["alice-of-a"])

                    let appB = Self.session(server, clientID: "app-b")
                    #expect(try await appB.accounts().map(\.name) == ["bob-of-b"])
                    #expect(try await earlierStore("bob-of-b").loadCredentials() == nil)
                    #expect(server.stats.refreshGrants == 0)
                }
            }
        }
    }
}
