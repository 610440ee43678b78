import Foundation
import HTTPTypes
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuthFileStore
import TokenKeyring

/// The session object as an app uses it, against a real OAuth server on loopback (discovery, OpenID Connect,
/// rotation) and the real keyring: sign in, call the API, stay signed in across a refresh and a relaunch, sign out.
@Suite("AuthSession: an app's sign-in, requests and sign-out", .needsSecretService, .timeLimit(.minutes(2)))
struct AuthSessionTests {
    /// A session for the server's public client, its items under a service of the test's own, in a graphical session
    /// (`DISPLAY`) whatever the test process's environment, so that ``AuthSession/SignInMethod/automatic`` chooses the
    /// browser.
    static func session(_ server: OAuthTestServer, service: String, scope: String = "openid read") -> AuthSession {
        AuthSession(
            configuration: .init(
                provider: .issuer(server.issuer), clientID: "test-client", scope: scope, service: service,
                keyring: TestKeyring.keyring, transport: URLSessionHTTPTransport(timeout: .seconds(60))),
            browserEnvironment: ["DISPLAY": ":0"])
    }

    /// Deletes every item of `service`, whatever happens in `body`.
    static func cleaningService<T>(_ service: String, _ body: () async throws -> T) async throws -> T {
        try await cleaningUp({
            for item in (try? await KeyringAuthStore.accounts(of: service, keyring: TestKeyring.keyring)) ?? [] {
                _ = try? await TestKeyring.keyring.delete(item.attributes)
            }
        }, body)
    }

    @Test("signed out at first; signed in through the browser as ada; an API call; a refresh; signed out, revoked")
    func signInRefreshSignOut() async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await Self.cleaningService(service) {
                let session = Self.session(server, service: service)
                #expect(await session.state() == .signedOut)
                await #expect(throws: TokenAuthError.self) { try await session.client() }

                let account = try await signInThroughTheBrowser(session)
                #expect(account.displayName == "ada")
                #expect(account.identity?.issuer == server.issuer)
                guard case .signedIn(let signedIn) = await session.state() else {
                    Issue.record("not signed in after the sign-in")
                    return
                }
                #expect(signedIn == account)
                #expect(await session.currentIdentity()?.subject == account.identity?.subject)

                let api = try await session.client()
                let (response, _) = try await api.send(HTTPRequest(method: .get, url: server.resourceURL))
                #expect(response.status == .ok)

                // The provider stops accepting the access token: one refresh, and the request goes through.
                let first = try await session.validToken()
                try await revoke(first, at: server)
                let (again, _) = try await api.send(HTTPRequest(method: .get, url: server.resourceURL))
                #expect(again.status == .ok)
                #expect(server.stats.refreshGrants == 1)
                #expect(try await session.validToken() != first)

                // A relaunch: a new session finds the account, signed in, without a request.
                let relaunched = Self.session(server, service: service)
                #expect(await relaunched.state() == .signedIn(account))
                #expect(try await relaunched.validToken() == (try await session.validToken()))
                #expect(server.stats.refreshGrants == 1)

                let outcome = try await session.signOut()
                #expect(outcome.deleted)
                #expect(outcome.revocation == .revoked)
                #expect(server.stats.revokedTokens >= 1)
                #expect(await session.state() == .signedOut)
                #expect(try await KeyringAuthStore.accounts(of: service, keyring: TestKeyring.keyring).isEmpty)
                await #expect(throws: TokenAuthError.self) { try await session.validToken() }
            }
        }
    }

    @Test("the device flow's code is shown by a hook on the caller's actor; the sign-in ends once it is approved")
    func deviceCodeOnTheMainActor() async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await Self.cleaningService(service) {
                let session = Self.session(server, service: service)
                let model = CodeModel()
                // A main-actor view model sets its property in the hook as it is: no `@MainActor in`, no hop.
                let signIn = Task { @MainActor in try await model.signIn(session) }
                try await waitUntil("the code to be shown") { await !model.code.isEmpty }
                #expect(try await approve(await model.code, at: server) == 200)
                let account = try await signIn.value
                #expect(account.displayName == "ada")
                #expect(await session.state() == .signedIn(account))
            }
        }
    }

    @Test("automatic: where no browser can be started after all, the code is shown instead; signed in once approved")
    func automaticFallsBackToTheCode() async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await Self.cleaningService(service) {
                let session = Self.session(server, service: service)
                let model = CodeModel()
                let signIn = Task { @MainActor in
                    try await session.signIn(
                        showCode: { prompt in model.code = prompt.userCode },
                        openBrowser: { _ in
                            model.browserAttempts += 1
                            throw SignInError.browserNotStarted("no browser here")
                        })
                }
                try await waitUntil("the code to be shown") { await !model.code.isEmpty }
                #expect(await model.browserAttempts == 1, "the browser was tried first")
                #expect(try await approve(await model.code, at: server) == 200)
                #expect(try await signIn.value.displayName == "ada")
            }
        }
    }

    @Test(
        "cancelled while the desktop portal is asked to open the browser: ends cancelled, and no code is asked for",
        arguments: [AuthSession.SignInMethod.automatic, .browser])
    func cancelledWhileThePortalIsAsked(method: AuthSession.SignInMethod) async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await Self.cleaningService(service) {
                let session = Self.session(server, service: service)
                let asked = AsyncStream<Void>.makeStream()
                // In a sandbox, a portal that does not answer until the user gives up (the Cancel button).
                let browser = SystemBrowser(environment: [:], portal: { _ in
                    asked.continuation.yield()
                    try await Task.sleep(for: .seconds(3600))
                }, sandboxed: true)
                let signIn = Task { try await session.signIn(using: method, openBrowser: { try await browser.open($0) }) }
                var portalCalls = asked.stream.makeAsyncIterator()
                _ = await portalCalls.next()
                signIn.cancel()
                await #expect(throws: CancellationError.self) { try await signIn.value }
                #expect(server.deviceFlowStats.authorizationRequests == 0, "no device code after the user gave up")
                #expect(await session.state() == .signedOut)
            }
        }
    }

    @Test("a locked keyring is unavailable, never signed out; the item is intact after the unlock", .needsPrivateProvider)
    func lockedKeyring() async throws {
        try await withServer { server in
            try await TestKeyring.withCollection(label: "session-\(UUID().uuidString.prefix(8))") { collection in
                let service = TestKeyring.uniqueService()
                try await Self.cleaningService(service) {
                    let store = KeyringAuthStore(
                        service: service, account: "ada", keyring: TestKeyring.keyring,
                        collection: collection.keyringCollection)
                    let issued = server.issueTokens(clientID: "test-client", subject: "ada")
                    try await store.save(Auth(accessToken: issued.accessToken, refreshToken: issued.refreshToken))
                    try DefaultAccounts.set("ada", for: service)
                    try await TestKeyring.lockWithGDBus(collection.path)

                    let session = AuthSession(configuration: .init(
                        provider: .issuer(server.issuer), clientID: "test-client", service: service,
                        keyring: Keyring(configuration: .init(prompting: .never))))
                    guard case .unavailable(let error) = await session.state() else {
                        Issue.record("a locked keyring was not reported as unavailable")
                        return
                    }
                    #expect(error.code == .locked)

                    try await TestKeyring.unlockCollection(collection.path)
                    #expect(await session.state() == .signedIn(.init(name: "ada", identity: nil)))
                }
            }
        }
    }

    @Test("another process signs out: the states stream says signed out, without the app asking")
    func signOutElsewhereIsAnnounced() async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await Self.cleaningService(service) {
                let session = Self.session(server, service: service)
                try await signInThroughTheBrowser(session)
                var states = session.states.makeAsyncIterator()
                guard case .signedIn = await states.next() else {
                    Issue.record("the stream did not start signed in")
                    return
                }
                // What `tokenctl logout` does to the item, from outside this session.
                _ = try await SignOut.perform(
                    service: service, account: "ada", keyring: TestKeyring.keyring, transport: URLSessionHTTPTransport())
                // Announced by the keyring's ItemDeleted and by the release of the item's lock.
                let next = await states.next()
                #expect(next == .signedOut)
            }
        }
    }

    @Test("a cancelled task reading the state gets the session's state; observers are told no other")
    func stateReadByACancelledTask() async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await Self.cleaningService(service) {
                let session = Self.session(server, service: service)
                let account = try await signInThroughTheBrowser(session)
                var states = session.states.makeAsyncIterator()
                #expect(await states.next() == .signedIn(account))
                // As an app's task given up just before it reads the state (the window's Cancel).
                let read = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return await session.state()
                }
                #expect(await read.value == .signedIn(account))
                // The next state the observers are told is the sign-out's: nothing came between.
                try await session.signOut()
                #expect(await states.next() == .signedOut)
            }
        }
    }

    @Test("two accounts side by side: listed with who they are; a switch makes the other current")
    func accountsAndSwitch() async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await Self.cleaningService(service) {
                let session = Self.session(server, service: service)
                let ada = try await signInThroughTheBrowser(session)
                server.browserFlow.outcome = .approve(subject: "bob")
                let bob = try await signInThroughTheBrowser(session)
                #expect(Set(try await session.accounts().map(\.displayName)) == ["ada", "bob"])
                #expect(await session.state() == .signedIn(bob))

                try await session.switchAccount(to: ada.name)
                #expect(await session.state() == .signedIn(ada))
                #expect(await Self.session(server, service: service).state() == .signedIn(ada), "the default account")
                await #expect(throws: TokenAuthError.self) { try await session.switchAccount(to: "nobody") }
            }
        }
    }
}

@MainActor
final class CodeModel {
    var code = ""
    var browserAttempts = 0

    func signIn(_ session: AuthSession) async throws -> AuthSession.Account {
        try await session.signIn(using: .deviceCode) { prompt in
            self.code = prompt.userCode
        }
    }
}

/// Signs in through the browser as the test server's browser flow decides (`ada` unless a test says otherwise): a
/// browser whose user is signed in at the provider already.
@discardableResult
func signInThroughTheBrowser(_ session: AuthSession) async throws -> AuthSession.Account {
    let browser = PlainBrowser()
    return try await session.signIn(using: .browser, openBrowser: { try await browser.open($0) })
}

/// Approves `userCode` through the test server's device page, as a person would: a form POST.
func approve(_ userCode: String, at server: OAuthTestServer) async throws -> Int {
    var request = HTTPRequest(method: .post, url: server.deviceVerificationPage)
    request.headerFields[.contentType] = "application/x-www-form-urlencoded"
    let body = "user_code=\(userCode)&action=approve"
    let (response, _) = try await URLSessionHTTPTransport().send(request, body: Data(body.utf8))
    return response.status.code
}

/// Revokes `token` at the server's revocation endpoint, as an administrator would.
func revoke(_ token: String, at server: OAuthTestServer) async throws {
    let client = OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: "test-client", revocationEndpoint: server.revocationEndpoint)
    try await TokenRevocationClient(client: client, transport: URLSessionHTTPTransport())?.revoke(token, hint: .accessToken)
}
