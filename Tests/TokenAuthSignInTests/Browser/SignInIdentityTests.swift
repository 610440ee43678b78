import Foundation
import OAuthTestServer
import OAuthTestSupport
import Testing
@testable import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn
import TokenAuthURLSession

@Suite("Who signed in, through the sign-in flows: the id_token checked with the nonce sent", .timeLimit(.minutes(2)))
struct SignInIdentityTests {
    static let transport = URLSessionHTTPTransport(timeout: .seconds(60))

    @Test("browser sign-in with openid: the nonce comes back in a valid id_token; the identity is in the Auth")
    func browserIdentity() async throws {
        try await withServer { server in
            let browser = PlainBrowser()
            let flow = try BrowserSignIn(
                metadata: try await server.discoveredMetadata(), clientID: "test-client", transport: Self.transport,
                clock: ManualClock())
            let credentials = try await flow.signIn(scope: "openid read") { try await browser.open($0) }
            let identity = try #require(credentials.auth.identity)
            #expect(identity.issuer == server.issuer)
            #expect(identity.subject == OAuthTestServer.subjectIdentifier(ofUser: "ada"))
            #expect(credentials.client?.issuer == server.issuer)
            #expect(credentials.client?.jwksURI != nil)
            #expect(server.stats.jwksRequests == 1)
            #expect(browser.pages.last?.page.contains("You are signed in as \(identity.displayName ?? "?")") == true)
        }
    }

    @Test("browser sign-in: an id_token with another nonce, or a bad signature, fails the sign-in and the tab says so")
    func browserRefusedIDTokens() async throws {
        try await withServer { server in
            let metadata = try await server.discoveredMetadata()
            for (fault, expected) in [(OAuthTestServer.IDTokenFault.wrongNonce, SignInError.Code.nonceMismatch), (.badSignature, .badSignature)] {
                server.updateFaults { $0.idTokenFaults = [fault] }
                let browser = PlainBrowser()
                let flow = try BrowserSignIn(
                    metadata: metadata, clientID: "test-client", transport: Self.transport, clock: ManualClock())
                let error = await #expect(throws: SignInError.self) {
                    try await flow.signIn(scope: "openid") { try await browser.open($0) }
                }
                #expect(error == expected, "\(fault)")
                #expect(browser.pages.last?.page.contains("could not confirm who signed in") == true)
            }
        }
    }

    @Test("without openid in the scope there is no identity and no key set is fetched")
    func withoutOpenID() async throws {
        try await withServer { server in
            let flow = try BrowserSignIn(
                metadata: try await server.discoveredMetadata(), clientID: "test-client", transport: Self.transport,
                clock: ManualClock())
            let credentials = try await flow.signIn(scope: "read") { try await PlainBrowser().open($0) }
            #expect(credentials.auth.identity == nil)
            #expect(server.stats.jwksRequests == 0)
        }
    }

    @Test("device sign-in with openid: the identity of the approving user")
    func deviceIdentity() async throws {
        try await withServer { server in
            let metadata = try await server.discoveredMetadata()
            let device = try DeviceAuthorization(
                metadata: metadata, clientID: "test-client", transport: Self.transport,
                clock: ManualClock(advancingOnSleep: true))
            let credentials = try await device.signIn(scope: "openid") { prompt in
                server.decide(userCode: prompt.userCode, .approve(subject: "alice"))
            }
            #expect(credentials.auth.identity?.subject == OAuthTestServer.subjectIdentifier(ofUser: "alice"))
            #expect(credentials.auth.identity?.issuer == server.issuer)
        }
    }

    @Test("a client that records no key set cannot sign in with openid: jwksMisconfigured, nothing returned")
    func openIDWithoutKeySet() async throws {
        try await withServer { server in
            let signIn = SignIn(client: server.client(), transport: Self.transport)
            let error = await #expect(throws: SignInError.self) {
                try await signIn.perform(.password(username: "alice", password: "wonderland"), scope: "openid")
            }
            #expect(error == .jwksMisconfigured)
        }
    }
}
