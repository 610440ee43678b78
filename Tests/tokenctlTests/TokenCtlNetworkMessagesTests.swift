import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import Testing

extension TokenCtlNetworkTests {
    /// What tokenctl says after a network failure: the cause in words; the transport's code only when asked for.
    @Suite("tokenctl names network failures in words")
    struct TokenCtlNetworkMessagesTests {
        @Test("an unreachable token endpoint: exit 5, \"the connection was refused\", no URLError code; TOKENCTL_LOG_LEVEL=debug adds it")
        func unreachableInWords() async throws {
            try await NetworkFixture.with { fixture in
                // A server that stopped: nothing listens on its port any more.
                let dead = try await withServer { $0.tokenEndpoint }
                let issued = fixture.server.issueTokens(clientID: "test-client", subject: "alice")
                let expired = Date(timeIntervalSinceNow: -60).formatted(.iso8601)
                let bundle = #"{"version":1,"access_token":"\#(issued.accessToken)","refresh_token":"\#(issued.refreshToken ?? "")","expires_at":"\#(expired)","token_endpoint":"\#(dead.absoluteString)","client_id":"test-client"}"#
                let imported = try await tokenctl(fixture.item("import"), stdin: bundle)
                try #require(imported.status == 0, "\(imported.allOutput)")

                let plain = try await tokenctl(fixture.item("token"), environment: ["TOKENCTL_LOG_LEVEL": nil])
                #expect(plain.status == 5, "\(plain.allOutput)")
                #expect(plain.stderr.contains("(127.0.0.1: the connection was refused)"), "\(plain.stderr)")
                #expect(!plain.stderr.contains("URLError") && !plain.stderr.contains("-1004"), "\(plain.stderr)")

                let debug = try await tokenctl(fixture.item("token"), environment: ["TOKENCTL_LOG_LEVEL": "debug"])
                #expect(debug.status == 5, "\(debug.allOutput)")
                #expect(debug.stderr.contains("[TokenAuthError.networkFailure (URLError -1004)]"), "\(debug.stderr)")
            }
        }

        @Test("an issuer nobody answers for: discovery's sentence names the cause in words, not \"the connection failed\"")
        func discoveryInWords() async throws {
            try await NetworkFixture.with { fixture in
                let dead = try await withServer { $0.issuer }
                let result = try await tokenctl(
                    fixture.item("login", "--issuer", dead.absoluteString, "--client-id", "test-client", "--no-browser"),
                    environment: ["TOKENCTL_LOG_LEVEL": nil])
                #expect(result.status == 5, "\(result.allOutput)")
                #expect(result.stderr.contains("metadata could not be fetched"), "\(result.stderr)")
                #expect(result.stderr.contains(": the connection was refused)"), "\(result.stderr)")
                #expect(!result.stderr.contains("URLError"), "\(result.stderr)")
            }
        }
    }
}
