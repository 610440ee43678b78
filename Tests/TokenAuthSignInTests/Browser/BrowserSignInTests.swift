import Foundation
import OAuthTestServer
import Synchronization
import OAuthTestSupport
import TestSupport
import Testing
@testable import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn
import TokenAuthURLSession

@Suite("Browser sign-in: authorization code + PKCE on a loopback redirect, against the local OAuth server",
    .timeLimit(.minutes(2)))
struct BrowserSignInTests {
    static let transport = URLSessionHTTPTransport(timeout: .seconds(60))

    static func browserSignIn(
        _ metadata: AuthorizationServerMetadata, clock: ManualClock = ManualClock(),
        redirect: BrowserSignIn.Redirect = BrowserSignIn.Redirect(), timeLimit: Duration = .seconds(300)
    ) throws -> BrowserSignIn {
        try BrowserSignIn(
            metadata: metadata, clientID: "test-client", redirect: redirect, timeLimit: timeLimit,
            transport: transport, clock: clock)
    }

    @Test("approved: the code is exchanged with the verifier, the tokens work, the tab says signed in, the port is freed")
    func approved() async throws {
        try await withServer { server in
            let browser = PlainBrowser()
            let flow = try Self.browserSignIn(try await server.discoveredMetadata())
            let credentials = try await flow.signIn(scope: "read") { try await browser.open($0) }

            #expect(credentials.client?.tokenEndpoint == server.tokenEndpoint)
            #expect(credentials.client?.clientID == "test-client")
            #expect(credentials.client?.revocationEndpoint == server.revocationEndpoint)
            #expect(credentials.auth.scope == "read")
            #expect(credentials.auth.refreshToken != nil)
            #expect(try await call(.get, server.resourceURL, bearer: credentials.auth.accessToken).status == 200)
            let stats = server.browserFlowStats
            #expect(stats.codesIssued == 1)
            #expect(stats.successfulExchanges == 1)
            #expect(stats.lastChallengeMethod == "S256")
            #expect(stats.lastNonce == nil)

            let page = try #require(browser.pages.last)
            #expect(page.status == 200)
            #expect(page.page.contains("You are signed in"))
            let redirectURI = try #require(browser.openedURLs.first?.queryValue("redirect_uri").flatMap(URL.init(string:)))
            #expect(redirectURI.host == "127.0.0.1")
            #expect(redirectURI.path == "/callback")
            #expect(await loopbackPortIsFree(try #require(redirectURI.port)))
        }
    }

    @Test("the authorization URL: response_type, client_id, redirect_uri, scope, a 256-bit state and an S256 challenge")
    func authorizationURL() async throws {
        try await withServer { server in
            let browser = PlainBrowser()
            _ = try await Self.browserSignIn(try await server.discoveredMetadata())
                .signIn(scope: "openid read") { try await browser.open($0) }
            let url = try #require(browser.openedURLs.first)
            #expect(url.absoluteString.hasPrefix(server.authorizationEndpoint.absoluteString + "?"))
            #expect(url.queryValue("response_type") == "code")
            #expect(url.queryValue("client_id") == "test-client")
            #expect(url.queryValue("scope") == "openid read")
            #expect(url.queryValue("code_challenge_method") == "S256")
            #expect(url.queryValue("code_challenge")?.count == 43)
            #expect(url.queryValue("state")?.count == 43)
            #expect(url.queryValue("nonce")?.count == 43)
            #expect(server.browserFlowStats.lastNonce == url.queryValue("nonce"))
            #expect(url.queryValue("code_verifier") == nil)
        }
    }

    @Test("a wrong or missing state on the redirect is answered 400 and the flow keeps waiting for the right one")
    func wrongState() async throws {
        try await withServer { server in
            let browser = PlainBrowser()
            let strays = PlainBrowser()
            let flow = try Self.browserSignIn(try await server.discoveredMetadata())
            let credentials = try await flow.signIn { url in
                let redirectURI = try #require(url.queryValue("redirect_uri").flatMap(URL.init(string:)))
                let forged = try await strays.visit(
                    redirectURI.settingQuery("code", to: "forged").settingQuery("state", to: "not-the-state"))
                #expect(forged.status == 400)
                #expect(forged.page.contains("does not belong to the sign-in"))
                #expect(try await strays.visit(redirectURI.settingQuery("code", to: "forged")).status == 400)
                try await browser.open(url)
            }
            #expect(try await call(.get, server.resourceURL, bearer: credentials.auth.accessToken).status == 200)
            #expect(server.browserFlowStats.codeExchanges == 1)
            #expect(browser.pages.last?.status == 200)
        }
    }

    @Test("a stray request to another path of the listener gets 404 and does not end the flow")
    func strayRequest() async throws {
        try await withServer { server in
            let browser = PlainBrowser()
            let flow = try Self.browserSignIn(try await server.discoveredMetadata())
            _ = try await flow.signIn { url in
                let redirectURI = try #require(url.queryValue("redirect_uri").flatMap(URL.init(string:)))
                let stray = try await PlainBrowser().visit(URL(string: "/favicon.ico", relativeTo: redirectURI)!.absoluteURL)
                #expect(stray.status == 404)
                try await browser.open(url)
            }
            #expect(browser.pages.last?.page.contains("You are signed in") == true)
        }
    }

    @Test("the time limit ends the flow with timedOut and releases the port; nothing is exchanged")
    func timeLimit() async throws {
        try await withServer { server in
            let clock = ManualClock()
            let opened = PlainBrowser()
            let flow = try Self.browserSignIn(try await server.discoveredMetadata(), clock: clock, timeLimit: .seconds(120))
            let ended = Mutex(false)
            let outcome = Task {
                defer { ended.withLock { $0 = true } }
                return try await flow.signIn { opened.record($0) }
            }
            defer { outcome.cancel() }
            await clock.waitUntilSleeps(1)
            let url = try #require(opened.openedURLs.first)
            let port = try #require(url.queryValue("redirect_uri").flatMap(URL.init(string:))?.port)
            #expect(await loopbackPortIsFree(port) == false)
            clock.advance(by: .seconds(120))
            try await waitUntil("the sign-in ended at its time limit") { ended.withLock { $0 } }
            await expectSignInError(.timedOut) { try await outcome.value }
            #expect(clock.sleeps == [.seconds(120)])
            #expect(await loopbackPortIsFree(port))
            #expect(server.browserFlowStats.codeExchanges == 0)
        }
    }

    @Test("cancelling the sign-in releases the port")
    func cancellation() async throws {
        try await withServer { server in
            let opened = PlainBrowser()
            let flow = try Self.browserSignIn(try await server.discoveredMetadata())
            let task = Task { try await flow.signIn { opened.record($0) } }
            try await waitUntil("the browser was asked to open") { !opened.openedURLs.isEmpty }
            let port = try #require(opened.openedURLs.first?.queryValue("redirect_uri").flatMap(URL.init(string:))?.port)
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(await loopbackPortIsFree(port))
        }
    }

    @Test("a hook that fails ends the sign-in with its error and releases the port")
    func failingHook() async throws {
        struct NoBrowser: Error {}
        try await withServer { server in
            let flow = try Self.browserSignIn(try await server.discoveredMetadata(), redirect: .init(port: 0, path: "/cb"))
            let opened = PlainBrowser()
            await #expect(throws: NoBrowser.self) {
                try await flow.signIn { url in
                    opened.record(url)
                    throw NoBrowser()
                }
            }
            let port = try #require(opened.openedURLs.first?.queryValue("redirect_uri").flatMap(URL.init(string:))?.port)
            #expect(await loopbackPortIsFree(port))
        }
    }

    @Test("a fixed port and path, as servers with exact redirect URIs need; a taken port is a misconfiguration")
    func fixedPort() async throws {
        try await withServer { server in
            let taken = try await LoopbackRedirectListener.bind(port: 0, path: "/")
            let port = taken.port
            let flow = try Self.browserSignIn(
                try await server.discoveredMetadata(), redirect: .init(port: port, path: "/oauth/done"))
            let error = await expectSignInError(.listenerUnavailable) {
                try await flow.signIn { _ in Issue.record("the browser must not be opened") }
            }
            #expect(error?.isMisconfiguration == true)
            await taken.close()

            server.browserFlow.registeredRedirectPaths = ["/oauth/done"]
            let browser = PlainBrowser()
            _ = try await flow.signIn { try await browser.open($0) }
            #expect(browser.openedURLs.first?.queryValue("redirect_uri") == "http://127.0.0.1:\(port)/oauth/done")
            #expect(browser.pages.last?.page.contains("You are signed in") == true)
        }
    }

    @Test("a verifier that does not match the challenge is refused by the server: invalid_grant, the tab says failed")
    func verifierMismatch() async throws {
        try await withServer { server in
            let browser = PlainBrowser()
            let flow = try Self.browserSignIn(try await server.discoveredMetadata())
            let error = await #expect(throws: TokenAuthError.self) {
                try await flow.signIn { url in
                    browser.record(url)
                    // An attacker's challenge: the code is bound to it, not to the app's verifier.
                    try await browser.visit(url.settingQuery("code_challenge", to: PKCE().challenge))
                }
            }
            #expect(error?.oauthErrorCode == "invalid_grant")
            #expect(server.browserFlowStats.verifierMismatches == 1)
            #expect(server.browserFlowStats.successfulExchanges == 0)
            #expect(browser.pages.last?.page.contains("Sign-in failed") == true)
        }
    }

    @Test("the user declines: denied, with the server's code and description, and a page that says what to do")
    func denied() async throws {
        try await withServer { server in
            server.browserFlow.outcome = .deny
            let browser = PlainBrowser()
            let flow = try Self.browserSignIn(try await server.discoveredMetadata())
            let error = await expectSignInError(.denied) {
                try await flow.signIn { try await browser.open($0) }
            }
            #expect(error?.oauthErrorCode == "access_denied")
            #expect(error?.oauthError?.errorDescription == "The user declined.")
            #expect(error?.isLoginRequired == true)
            #expect(server.browserFlowStats.codesIssued == 0)
            #expect(server.browserFlowStats.codeExchanges == 0)
            #expect(browser.pages.last?.page.contains("declined") == true)
        }
    }

    @Test("other errors on the redirect: invalid_scope is rejected (refused), temporarily_unavailable is transient")
    func redirectErrors() async throws {
        try await withServer { server in
            let metadata = try await server.discoveredMetadata()
            server.browserFlow.outcome = .error("invalid_scope", description: "<script>alert(1)</script>")
            let browser = PlainBrowser()
            let rejected = await expectSignInError(.rejected) {
                try await Self.browserSignIn(metadata).signIn { try await browser.open($0) }
            }
            #expect(rejected?.oauthErrorCode == "invalid_scope")
            #expect(rejected?.isLoginRequired == true)
            let page = try #require(browser.pages.last?.page)
            #expect(!page.contains("<script>"))
            #expect(page.contains("&lt;script&gt;"))

            server.browserFlow.outcome = .error("temporarily_unavailable", description: nil)
            let unavailable = await expectSignInError(.unavailable) {
                try await Self.browserSignIn(metadata).signIn { try await PlainBrowser().open($0) }
            }
            #expect(unavailable?.isTransient == true)
        }
    }

    @Test("RFC 9207: an iss that is not the issuer is refused; a missing iss is refused when the server promised it")
    func issuerParameter() async throws {
        try await withServer { server in
            let metadata = try await server.discoveredMetadata()
            #expect(metadata.authorizationResponseIssParameterSupported)
            server.browserFlow.issuerOverride = "https://evil.example"
            await expectSignInError(.responseIssuerMismatch) {
                try await Self.browserSignIn(metadata).signIn { try await PlainBrowser().open($0) }
            }
            server.browserFlow.issuerOverride = nil
            server.browserFlow.sendsIssuer = false
            await expectSignInError(.responseIssuerMismatch) {
                try await Self.browserSignIn(metadata).signIn { try await PlainBrowser().open($0) }
            }
            #expect(server.browserFlowStats.codeExchanges == 0)
            // A server that does not promise iss may leave it out.
            let quiet = try await server.discoveredMetadata()
            #expect(!quiet.authorizationResponseIssParameterSupported)
            _ = try await Self.browserSignIn(quiet).signIn { try await PlainBrowser().open($0) }
            #expect(server.browserFlowStats.successfulExchanges == 1)
        }
    }

    @Test("metadata without an authorization endpoint, or without S256, cannot start a browser sign-in")
    func unusableMetadata() async throws {
        try await withServer { server in
            server.browserFlow.advertisesPlainPKCEOnly = true
            await expectSignInError(.pkceUnsupported) {
                _ = try Self.browserSignIn(try await server.discoveredMetadata())
            }
            server.browserFlow.advertisesPlainPKCEOnly = false
            server.discovery.omittedMembers = ["authorization_endpoint"]
            let error = await expectSignInError(.noAuthorizationEndpoint) {
                _ = try Self.browserSignIn(try await server.discoveredMetadata())
            }
            #expect(error?.isMisconfiguration == true)
        }
    }

    @Test("configuration checks: an insecure authorization endpoint and a redirect path that is not a path")
    func configurationChecks() async throws {
        let client = OAuthClient(tokenEndpoint: URL(string: "https://auth.example.com/token")!, clientID: "c")
        await expectSignInError(.insecureEndpoint) {
            try BrowserSignIn(
                client: client, authorizationEndpoint: URL(string: "http://auth.example.com/authorize")!,
                transport: Self.transport)
        }
        for path in ["callback", "/a?b=c", "/a#b", "/a b"] {
            await expectSignInError(.invalidRedirect) {
                try BrowserSignIn(
                    client: client, authorizationEndpoint: URL(string: "https://auth.example.com/authorize")!,
                    redirect: .init(port: 0, path: path), transport: Self.transport)
            }
        }
    }
}
