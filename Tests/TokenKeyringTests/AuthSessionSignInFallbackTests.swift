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

    /// Runs `body` with a session of a service of its own (deleted afterwards) on a new server, on a manual clock.
    func withSession(_ body: (OAuthTestServer, AuthSession, ManualClock) async throws -> Void) async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await AuthSessionTests.cleaningService(service) {
                let clock = ManualClock()
                try await body(server, Self.session(server, service: service, clock: clock), clock)
            }
        }
    }

    /// Runs `body` with an `.automatic` sign-in started on the main actor, its hooks recording into `shown`.
    func withSignIn(
        _ body: (OAuthTestServer, AuthSession, ManualClock, Shown, Task<AuthSession.Account, any Error>) async throws -> Void
    ) async throws {
        try await withSession { server, session, clock in
            let shown = Shown()
            let signIn = Task { @MainActor in
                try await session.signIn(showCode: { shown.code($0) }, showPage: { shown.page($0) })
            }
            try await body(server, session, clock, shown, signIn)
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

    /// An actor whose jobs run on a dispatch queue of its own, marked with ``key``: code that runs on the actor finds
    /// the mark, code anywhere else (the cooperative pool, another actor) does not. The hooks of a window's toolkit
    /// (GTK's main loop) must run where the caller's isolation runs them, or the toolkit crashes.
    actor QueueActor {
        static let key = DispatchSpecificKey<String>()

        final class Executor: SerialExecutor {
            let queue: DispatchQueue

            init(label: String) {
                queue = DispatchQueue(label: label)
                queue.setSpecific(key: QueueActor.key, value: label)
            }

            func enqueue(_ job: consuming ExecutorJob) {
                let job = UnownedJob(job)
                queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
            }
        }

        let executor = Executor(label: "the caller's actor")
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        /// For each hook call, where it ran: the queue's label, or nil off the actor.
        var calls: [(hook: String, queue: String?)] = []

        func signIn(_ session: AuthSession) async throws -> AuthSession.Account {
            try await session.signIn(
                showCode: { _ in self.calls.append(("showCode", DispatchQueue.getSpecific(key: Self.key))) },
                showPage: { _ in self.calls.append(("showPage", DispatchQueue.getSpecific(key: Self.key))) })
        }
    }

    @Test("the hooks run on the caller's actor, also those called after the bound (a task group's body did not)")
    func hooksOnTheCallersActor() async throws {
        try await withSession { server, session, clock in
            let caller = QueueActor()
            let signIn = Task { try await caller.signIn(session) }
            await clock.waitUntilSleeps(1)
            clock.advance(by: .seconds(20))
            try await waitUntil("the code to be shown") { await caller.calls.contains { $0.hook == "showCode" } }
            let code = try #require(server.pendingUserCodes.first)
            #expect(try await approve(code, at: server) == 200)
            _ = try await signIn.value
            let calls = await caller.calls
            #expect(calls.map(\.hook) == ["showPage", "showCode"])
            #expect(calls.allSatisfy { $0.queue == "the caller's actor" }, "\(calls)")
            // The mark is the actor's alone: off it, as on the cooperative pool, it is not found.
            #expect(await Task.detached { DispatchQueue.getSpecific(key: QueueActor.key) }.value == nil)
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
