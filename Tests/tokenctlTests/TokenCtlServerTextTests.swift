import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth

extension TokenCtlNetworkTests {
    /// What a server sends and tokenctl prints: never an escape sequence or control character.
    @Suite("tokenctl prints server text without escape sequences")
    struct TokenCtlServerTextTests {
        @Test("a user code with an escape sequence and a bidirectional override is shown without them")
        func hostileUserCode() async throws {
            try await NetworkFixture.with { fixture in
                fixture.server.deviceFlow.interval = 1
                fixture.server.deviceFlow.userCode = "WDJB-\u{1B}[2J\u{1B}]0;owned\u{07}MJHT\u{202E}"
                async let running = tokenctl(TokenCtlSignInFlowTests.login(fixture, "--device"))
                try await waitUntil("a device code was issued") { !fixture.server.pendingUserCodes.isEmpty }
                let userCode = try #require(fixture.server.pendingUserCodes.first)
                #expect(fixture.server.decide(userCode: userCode, .approve(subject: "alice")))
                let result = try await running
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("enter the code:\n  WDJB-MJHT\n"), "\(result.stderr)")
                #expect(!result.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" })
            }
        }
    }
}
