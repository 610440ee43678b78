import Foundation
import HTTPTypes
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthTesting
import TokenAuthSignIn
import TokenAuthURLSession

/// The app's hooks — the browser's `openBrowser`, the device flow's `prompt` — and cancellation: a hook whose actor
/// cannot run it does not keep a cancelled sign-in alive and never runs for it later, and no browser is started and
/// no code shown for a sign-in already cancelled.
///
/// Serialized: the tests hold the one ``HeldActor``.
@Suite("Sign-in hooks respect cancellation", .serialized, .timeLimit(.minutes(2)))
struct HookCancellationTests {
    static let transport = URLSessionHTTPTransport(timeout: .seconds(60))

    static func browserSignIn(_ server: OAuthTestServer) async throws -> BrowserSignIn {
        try BrowserSignIn(metadata: try await server.discoveredMetadata(), clientID: "test-client", transport: transport)
    }

    static func device(_ server: OAuthTestServer, transport: any HTTPTransport = transport) -> DeviceAuthorization {
        DeviceAuthorization(
            client: server.client(), deviceAuthorizationEndpoint: server.deviceAuthorizationEndpoint,
            transport: transport, clock: ManualClock(advancingOnSleep: true))
    }

    /// Runs `body` with ``HeldActor`` held, and releases it afterwards, also when `body` throws.
    static func holdingTheActor(_ body: () async throws -> Void) async throws {
        HeldActor.executor.hold()
        try await cleaningUp({ HeldActor.executor.release() }, body)
    }

    /// Waits for a cancelled sign-in to end, and expects `CancellationError`. Bounded, because a sign-in that waits
    /// for its hook's actor would wait until the test releases it, afterwards; a wait in vain is recorded, not
    /// thrown, so that the test goes on to count what the hook did once released.
    static func expectEndsCancelled<T>(_ signIn: RunningSignIn<T>, sourceLocation: SourceLocation = #_sourceLocation)
        async
    {
        do {
            try await waitUntil("the cancelled sign-in ends while its hook's actor is busy", within: .seconds(30)) {
                signIn.outcome != nil
            }
        } catch {
            Issue.record(error, sourceLocation: sourceLocation)
            return
        }
        let error = signIn.outcome.flatMap { outcome in
            if case .failure(let error) = outcome { error } else { nil }
        }
        #expect(error is CancellationError, "\(String(describing: signIn.outcome))", sourceLocation: sourceLocation)
    }

    @Test("a browser hook whose actor is busy: cancelling ends the sign-in at once, and the browser never opens after")
    func browserHookOnBusyActor() async throws {
        try await withServer { server in
            let flow = try await Self.browserSignIn(server)
            let launches = HookRuns<URL>()
            try await Self.holdingTheActor {
                let signIn = RunningSignIn { try await flow.signIn { @HeldActor url in launches.record(url) } }
                await HeldActor.executor.waitUntilHeld(1)  // the hook waits for its actor
                signIn.cancel()
                await Self.expectEndsCancelled(signIn)
            }
            await HeldActor.drain()  // everything the actor was holding has run now
            #expect(launches.count == 0)
            #expect(server.browserFlowStats.authorizationRequests == 0)
        }
    }

    @Test("a device-code hook whose actor is busy: cancelling ends the sign-in at once, the code is never shown after")
    func promptHookOnBusyActor() async throws {
        try await withServer { server in
            let shown = HookRuns<DeviceAuthorization.Prompt>()
            try await Self.holdingTheActor {
                let device = Self.device(server)
                let signIn = RunningSignIn { try await device.signIn { @HeldActor prompt in shown.record(prompt) } }
                await HeldActor.executor.waitUntilHeld(1)
                signIn.cancel()
                await Self.expectEndsCancelled(signIn)
            }
            await HeldActor.drain()
            #expect(shown.count == 0)
            #expect(server.deviceFlowStats.codesIssued == 1)
            #expect(server.deviceFlowStats.polls == 0)
        }
    }

    @Test("a hook on an actor that is free runs as before: the sign-in completes")
    func hookOnFreeActor() async throws {
        try await withServer { server in
            let shown = HookRuns<DeviceAuthorization.Prompt>()
            let credentials = try await Self.device(server).signIn { @HeldActor prompt in
                shown.record(prompt)
                server.decide(userCode: prompt.userCode, .approve(subject: "alice"))
            }
            #expect(shown.count == 1)
            #expect(server.subject(ofToken: credentials.auth.accessToken) == "alice")
        }
    }

    @Test("a hook that has started sees the cancellation, and the sign-in ends only after the hook returned")
    func startedHookIsWaitedFor() async throws {
        try await withServer { server in
            let inHook = Gate(isOpen: false)
            let returned = HookRuns<Bool>()
            let device = Self.device(server)
            let signIn = RunningSignIn {
                try await device.signIn { @HeldActor _ in
                    defer { returned.record(true) }
                    try await inHook.pass()  // throws CancellationError once the hook's task is cancelled
                }
            }
            await inHook.waitUntilArrivals(1)
            signIn.cancel()
            await Self.expectEndsCancelled(signIn)
            #expect(returned.count == 1, "the hook returned before its sign-in ended")
            #expect(server.deviceFlowStats.polls == 0)
        }
    }

    @Test("cancelled while SystemBrowser asks the desktop portal: the sign-in ends cancelled, not 'no browser'")
    func cancelledWhileThePortalIsAsked() async throws {
        try await withServer { server in
            let flow = try await Self.browserSignIn(server)
            let inPortal = Gate(isOpen: false)
            // A sandbox's portal that does not answer until the user gives up.
            let browser = SystemBrowser(environment: [:], portal: { _ in try await inPortal.pass() }, sandboxed: true)
            let signIn = RunningSignIn { try await flow.signIn { url in try await browser.open(url) } }
            await inPortal.waitUntilArrivals(1)
            signIn.cancel()
            await Self.expectEndsCancelled(signIn)
        }
    }

    @Test("a browser sign-in cancelled before the browser starts starts none")
    func browserSignInCancelledBeforeTheBrowser() async throws {
        try await withServer { server in
            let flow = try await Self.browserSignIn(server)
            let launches = HookRuns<URL>()
            let outcome = await runCancelled { try await flow.signIn { url in launches.record(url) } }
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(launches.count == 0)
        }
    }

    @Test("a device sign-in cancelled as its code arrives shows no code and polls nothing")
    func deviceSignInCancelledBeforeTheCode() async throws {
        try await withServer { server in
            let shown = HookRuns<DeviceAuthorization.Prompt>()
            let device = Self.device(server, transport: CancellingTransport(Self.transport))
            let outcome = await Task { try await device.signIn { prompt in shown.record(prompt) } }.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(server.deviceFlowStats.codesIssued == 1)
            #expect(shown.count == 0)
            #expect(server.deviceFlowStats.polls == 0)
        }
    }
}

/// The real transport, except that the task that sent the request is cancelled as the answer arrives: the user
/// gives up just as the device code comes in.
private struct CancellingTransport: HTTPTransport {
    let base: URLSessionHTTPTransport
    init(_ base: URLSessionHTTPTransport) { self.base = base }

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        try await send(request, body: body, redirects: .follow)
    }

    func send(_ request: HTTPRequest, body: Data?, redirects: HTTPRedirectPolicy) async throws -> (HTTPResponse, Data) {
        let answer = try await base.send(request, body: body, redirects: redirects)
        withUnsafeCurrentTask { $0?.cancel() }
        return answer
    }
}
