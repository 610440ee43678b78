import Foundation
import KeyringTestSupport
import OAuthTestServer
import TestSupport
import Testing
import TokenAuth
import TokenAuthKeyring

extension TokenCtlNetworkTests {
    /// `expires_in` is whatever the server sends. Every `tokenctl` process that reads the item must neither crash nor
    /// mis-time it: a huge number is ten years, zero or negative is "already expired", a numeric string is a number.
    @Suite("tokenctl against odd expires_in values: nothing traps, nothing is mis-timed, other items are served")
    struct TokenCtlOutsideNumbersTests {
        /// What a value of `expires_in` must turn into, in seconds from the sign-in.
        struct Case: Sendable, CustomTestStringConvertible {
            let json: String
            /// The lifetime the item must record.
            let lifetime: TimeInterval
            var testDescription: String { "expires_in \(json)" }
            var isExpiredOnArrival: Bool { lifetime <= 0 }
        }

        static let cases = [
            Case(json: "1e17", lifetime: Double(TokenResponse.maximumLifetime.components.seconds)),
            Case(json: "-5", lifetime: 0),
            Case(json: "0", lifetime: 0),
            Case(json: #""3599""#, lifetime: 3599),
        ]

        @Test("login, token, show, show --json and list exit 0 and time the item sanely; another account is served",
            arguments: cases)
        func oddExpiresIn(_ value: Case) async throws {
            try await NetworkFixture.with { fixture in
                let server = fixture.server
                let other = KeyringAuthStore(
                    service: fixture.service, account: "bob",
                    client: OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: "test-client"),
                    keyring: TestKeyring.keyring)
                let bob = server.issueTokens(clientID: "test-client", subject: "bob")
                try await cleaningUp({ _ = try? await other.delete() }) {
                    try await other.save(Auth(
                        accessToken: bob.accessToken, refreshToken: bob.refreshToken,
                        expiresAt: Date(timeIntervalSinceNow: 3600)))
                    server.updateFaults { $0.expiresInJSON = value.json }
                    let signedInAt = Date()
                    try await fixture.login()
                    let stored = try #require(try await fixture.store.load())
                    let recorded = try #require(stored.expiresAt).timeIntervalSince(signedInAt)
                    #expect(abs(recorded - value.lifetime) < 60, "expires_at \(stored.expiresAt!)")

                    // token: an expired-on-arrival token is refreshed, at each use; the others are served as they are.
                    var previous = stored.accessToken
                    for use in 1...2 {
                        let token = try await tokenctl(fixture.item("token"))
                        #expect(token.status == 0, "\(token.stderr)")
                        let printed = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                        if value.isExpiredOnArrival {
                            #expect(!printed.isEmpty && printed != previous)
                            #expect(server.stats.refreshGrants == use)
                        } else {
                            #expect(printed == stored.accessToken)
                            #expect(server.stats.refreshGrants == 0)
                        }
                        previous = printed
                    }

                    let shown = try await tokenctl(fixture.item("show"))
                    #expect(shown.status == 0, "\(shown.stderr)")
                    #expect(shown.stdout.contains(value.isExpiredOnArrival ? "expired " : "expires in "), "\(shown.stdout)")
                    let json = try await tokenctl(fixture.item("show", "--json"))
                    #expect(json.status == 0, "\(json.stderr)")
                    let summary = try json.json()
                    let seconds = try #require(summary["expires_in_seconds"] as? Int)
                    #expect(Double(seconds) <= value.lifetime && Double(seconds) > value.lifetime - 300, "\(seconds)")
                    #expect(summary["expired"] as? Bool == value.isExpiredOnArrival)
                    let expiresAt = try #require((summary["expires_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
                    #expect(abs(expiresAt.timeIntervalSinceNow - Double(seconds)) < 60)

                    let listed = try await tokenctl(["list", "--service", fixture.service, "--no-prompt"])
                    #expect(listed.status == 0, "\(listed.stderr)")
                    #expect(listed.stdout.contains("alice") && listed.stdout.contains("bob"), "\(listed.stdout)")

                    let grants = server.stats.refreshGrants
                    let bobsToken = try await tokenctl(
                        ["token", "--service", fixture.service, "--account", "bob", "--no-prompt"])
                    #expect(bobsToken.status == 0, "\(bobsToken.stderr)")
                    #expect(bobsToken.stdout == bob.accessToken + "\n")
                    #expect(server.stats.refreshGrants == grants)
                }
            }
        }

        @Test("numbers on the command line that no clock can count are usage errors (exit 64), not traps", arguments: [
            ["show", "--service", "S", "--account", "A", "--timeout", "inf"],
            ["show", "--service", "S", "--account", "A", "--timeout", "1e300"],
            ["show", "--service", "S", "--account", "A", "--timeout", "86401"],
            ["login", "--service", "S", "--account", "A", "--issuer", "https://auth.example.com", "--client-id", "c",
             "--time-limit", "9223372036854775807"],
        ])
        func unboundedOptions(_ arguments: [String]) async throws {
            let result = try await tokenctl(arguments)
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stderr.contains("at most 86400"), "\(result.stderr)")
        }
    }
}
