import Foundation
import HTTPTypes
import OAuthTestSupport
import Testing
@testable import TokenAuth
import TokenAuthTesting

/// What log lines and events may say about URLs and errors, and the save-failed event built from it.
@Suite("Log redaction")
struct LogRedactionTests {
    /// A store error that, like many, repeats what it was given in its text.
    struct EchoingStoreError: Error, CustomStringConvertible {
        let code = "diskFull"
        let written: String
        var description: String { "could not write \(written)" }
    }

    @Test("URLs are logged without user info, query or fragment")
    func urls() throws {
        let url = try #require(URL(string: "https://ada:pw@api.example.com:8443/v1/me?code=abc&token=xyz#frag"))
        #expect(LogRedaction.url(url) == "https://api.example.com:8443/v1/me")
        #expect(LogRedaction.request(HTTPRequest(method: .post, url: url)) == "POST https://api.example.com:8443/v1/me")
    }

    @Test("an error is logged as its type and, when it has one, its code: never its text")
    func errors() {
        #expect(LogRedaction.error(EchoingStoreError(written: "secret")) == "EchoingStoreError.diskFull")
        #expect(LogRedaction.error(TokenAuthError.noCredentials("no credentials are stored")) == "TokenAuthError.noCredentials")
        #expect(LogRedaction.error(TokenAuthError.timedOut) == "TokenAuthError.timedOut")
        #expect(LogRedaction.error(CancellationError()) == "CancellationError")
    }

    @Test("a failed save is reported by the error's type and code, not by its text, which here holds a token")
    func saveFailedEvent() async throws {
        try await RefreshFixture.with { fixture in
            let seeded = fixture.seed()
            let store = ControlledAuthStore(seeded)
            let failure = EchoingStoreError(written: try #require(seeded.refreshToken))
            store.failSaves(with: failure)
            let capture = LogCapture()
            let manager = AuthManager(
                store: store, refresher: fixture.refresher, wallClock: fixture.clock.wallClock,
                clock: ManualClock(advancingOnSleep: true), logger: capture.logger("TokenAuth.AuthManager"))
            let log = EventLog(manager)

            _ = try await manager.validAuth()

            let events = try await log.waitFor { $0.contains { if case .saveFailed = $0 { true } else { false } } }
            #expect(events.contains(.saveFailed(reason: "EchoingStoreError.diskFull")))
            let reported = capture.lines.filter { $0.level == .error }
            #expect(reported.map { $0.metadata["error"] } == ["EchoingStoreError.diskFull"])
            #expect(!(events.map { "\($0)" } + capture.lines.map(\.description)).contains { $0.contains(failure.written) })
        }
    }
}
