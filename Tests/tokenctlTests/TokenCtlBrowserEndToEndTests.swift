import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth

extension TokenCtlNetworkTests {
    @Suite("tokenctl login through a real browser: headless Chromium as BROWSER")
    struct TokenCtlBrowserEndToEndTests {
        /// Debian's Chromium, which `scripts/test` installs. Missing, the test fails rather than skips.
        static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }

        @Test("Chromium follows the provider's redirect to the loopback listener, is shown its page; the item is stored")
        func chromiumSignsIn() async throws {
            let chromium = try #require(
                Self.chromium, "Chromium is not installed: scripts/test installs it (apt-get install chromium)")
            try await NetworkFixture.with { fixture in
                let directory = try TemporaryDirectory()
                let dom = directory.url.appendingPathComponent("dom.html").path
                // A browser command that keeps the page it ends on. Its own profile and a basic password store, so
                // that it never touches the keyring under test.
                let browser = try directory.script("browser", """
                    #!/bin/sh
                    \(chromium) --headless --no-sandbox --disable-gpu --no-first-run --password-store=basic \\
                      --user-data-dir=\(directory.url.path)/profile --dump-dom "$1" > \(dom).part 2> \(dom).log \\
                      && mv \(dom).part \(dom)
                    """)
                let result = try await tokenctl(
                    fixture.item(
                        "login", "--issuer", fixture.server.issuer.absoluteString, "--client-id", "test-client",
                        "--scope", "read"),
                    environment: ["BROWSER": browser])
                #expect(result.status == 0, "\(result.stderr)")
                try await waitUntil("Chromium wrote the page it was shown", within: .seconds(60)) {
                    FileManager.default.fileExists(atPath: dom)
                }
                let page = try String(contentsOfFile: dom, encoding: .utf8)
                #expect(page.contains("You are signed in"), "\(page)")

                let stored = try #require(try await fixture.store.loadCredentials())
                #expect(stored.client?.tokenEndpoint == fixture.server.tokenEndpoint)
                #expect(fixture.server.browserFlowStats.codesIssued == 1)
                #expect(fixture.server.browserFlowStats.successfulExchanges == 1)
                let request = try await tokenctl(fixture.item("request", fixture.server.resourceURL.absoluteString))
                #expect(request.status == 0, "\(request.stderr)")
            }
        }
    }
}
