import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import Synchronization
import TestSupport
import Testing
import TokenAuthTesting
import TokenKeyring

/// `.automatic` in a graphical session whose browser command starts and opens nothing: the page's address reaches
/// the app at once, and the device flow's code follows after the app's bound; whichever flow comes back first signs in.
@Suite("AuthSession: automatic sign-in with a browser that opens nothing", .needsSecretService, .timeLimit(.minutes(2)))
struct AuthSessionSignInFallbackTests {
    /// A session in a graphical session whose `BROWSER` is `/bin/true`: it starts, succeeds, and opens nothing.
    static func session(_ server: OAuthTestServer, service: String, clock: ManualClock) -> AuthSession {
        AuthSession(
            configuration: .init(
                provider: .issuer(server.issuer), clientID: "test-client", scope: "openid read", service: service,
                keyring: TestKeyring.keyring, transport: URLSessionHTTPTransport(timeout: .seconds(60)),
                browserFallback: .seconds(20), clock: clock),
            browserEnvironment: ["DISPLAY": ":0", "BROWSER": "/bin/true", "PATH": "/usr/bin:/bin"])
    }

    @MainActor final class Shown {
        var pages: [URL] = []
        var codes: [String] = []

        func page(_ url: URL) { pages.append(url) }

        func code(_ prompt: DeviceAuthorization.Prompt) { codes.append(prompt.userCode) }
    }

    /// Runs `body` with an `.automatic` sign-in started on the main actor, its hooks recording into `shown`, in a
    /// session of a service of its own (deleted afterwards) on a new server.
    func withSignIn(
        _ body: (OAuthTestServer, AuthSession, ManualClock, Shown, Task<AuthSession.Account, any Error>) async throws -> Void
    ) async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await AuthSessionTests.cleaningService(service) {
                let clock = ManualClock()
                let session = Self.session(server, service: service, clock: clock)
                let shown = Shown()
                let signIn = Task { @MainActor in
                    try await session.signIn(showCode: { shown.code($0) }, showPage: { shown.page($0) })
                }
                try await body(server, session, clock, shown, signIn)
            }
        }
    }

    @Test("the page's address reaches the app; after the bound the code follows, and its approval signs in")
    func codeFollowsAfterTheBound() async throws {
        try await withSignIn { server, session, clock, shown, signIn in
            try await waitUntil("the page's address to reach the app") { await !shown.pages.isEmpty }
            let authorize = server.baseURL.appendingPathComponent("authorize").absoluteString
            #expect(await shown.pages.first?.absoluteString.hasPrefix(authorize) == true)
            await clock.waitUntilSleeps(1)  // the bound's wait has begun: no code yet
            #expect(await shown.codes.isEmpty)

            clock.advance(by: .seconds(20))
            try await waitUntil("the code to be shown") { await !shown.codes.isEmpty }
            #expect(try await approve(await shown.codes[0], at: server) == 200)
            #expect(try await signIn.value.displayName == "ada")
            guard case .signedIn(let account) = await session.state() else {
                Issue.record("not signed in after the code was approved")
                return
            }
            #expect(account.displayName == "ada")
            #expect(await shown.pages.count == 1)
            #expect(await shown.codes.count == 1)
        }
    }

    @Test("a browser that comes back after the code was shown still signs in; the code is abandoned")
    func browserComesBackLate() async throws {
        try await withSignIn { server, session, clock, shown, signIn in
            await clock.waitUntilSleeps(1)
            clock.advance(by: .seconds(20))
            try await waitUntil("the code to be shown") { await !shown.codes.isEmpty }

            // The user opens the address by hand, in a browser signed in at the provider.
            let page = try #require(await shown.pages.first)
            try await PlainBrowser().open(page)
            // The code was never approved: the browser signed in.
            #expect(try await signIn.value.displayName == "ada")
            #expect(await shown.codes.count == 1)
        }
    }
}
