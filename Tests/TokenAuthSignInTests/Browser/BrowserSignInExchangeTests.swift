import Foundation
import OAuthTestServer
import OAuthTestSupport
import Synchronization
import TestSupport
import Testing
@testable import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn

extension BrowserSignInTests {
    @Test("a code that arrived in time is exchanged to the end, even when the time limit passes during the exchange")
    func exchangeOutlivesTimeLimit() async throws {
        try await withServer { server in
            let clock = ManualClock()
            let opened = PlainBrowser()
            let flow = try Self.browserSignIn(try await server.discoveredMetadata(), clock: clock, timeLimit: .seconds(120))
            server.holdTokenAnswers()
            let outcome = Task { try await flow.signIn(scope: "read") { opened.record($0) } }
            defer { outcome.cancel() }
            try await waitUntil("the browser was asked to open") { !opened.openedURLs.isEmpty }

            // The browser comes back with the code, outside the sign-in's tasks: nothing cancels its request (on
            // Linux, cancelling URLSession's async data(from:) can deadlock), whatever the sign-in does.
            let url = try #require(opened.openedURLs.first)
            let browser = PlainBrowser()
            let visit = Task { try await browser.visit(url) }
            try await server.waitForHeldTokenRequests(1)  // the code's exchange waits at the token endpoint
            await clock.waitUntilSleeps(1)
            clock.advance(by: .seconds(120))
            server.releaseTokenAnswers()

            let credentials = try await outcome.value
            #expect(try await call(.get, server.resourceURL, bearer: credentials.auth.accessToken).status == 200)
            #expect(server.browserFlowStats.successfulExchanges == 1)
            #expect(try await visit.value.page.contains("You are signed in"))
            let port = try #require(url.queryValue("redirect_uri").flatMap(URL.init(string:))?.port)
            #expect(await loopbackPortIsFree(port))
        }
    }

    @Test("the time limit and the answer: whichever comes first wins, once")
    func timeLimitOrAnswer() {
        let answered = RedirectTimeLimit()
        #expect(answered.stop())
        #expect(answered.pass() == false)
        #expect(answered.stop())

        let passed = RedirectTimeLimit()
        #expect(passed.pass())
        #expect(passed.stop() == false)
        #expect(passed.pass())
    }
}
