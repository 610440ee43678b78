import Foundation
import KeyringTestSupport
import Testing
import TestSupport

/// Runs `scripts/demo`, which installs the Debian packages it misses (apt-get, as root or with sudo): so only when
/// `scripts/test`, which has installed them already, asks for it. There it always runs, and fails when anything is
/// missing.
@Suite("scripts/demo, the README's first command", .runsTheDemo, .needsSecretService)
struct DemoScriptTests {
    @Test("signs in through headless Chromium, runs to the end against the session's keyring, reports exactly 1 refresh for 200 concurrent requests, and cleans up")
    func demoRuns() async throws {
        let tokenctlPath = try #require(TokenCtlBinary.path, "no built tokenctl; run `swift build --build-tests`")
        let binaries = URL(fileURLWithPath: tokenctlPath).deletingLastPathComponent()
        for program in ["oauth-test-server", "tokenkeyring-demo"] {
            try #require(
                FileManager.default.isExecutableFile(atPath: binaries.appendingPathComponent(program).path),
                "\(program) is not built next to tokenctl; run `swift build --build-tests`")
        }
        let script = TestKeyring.scriptsDirectory.appendingPathComponent("demo").path
        // With TOKENKEYRING_DEMO_BIN_DIR the demo does not build: `swift test` holds the build lock.
        let result = try await runCommand(
            "/bin/bash", [script], environment: ["TOKENKEYRING_DEMO_BIN_DIR": binaries.path], timeout: .seconds(180))
        #expect(result.status == 0, "stdout:\n\(result.stdout)\nstderr:\n\(result.stderr)")
        let lastLine = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(lastLine == "demo: ok — 200 concurrent requests, 1 refresh", "\(result.stdout)")
        // It signed in through the browser: headless Chromium was shown the loopback listener's page.
        #expect(result.stdout.contains("The browser tab said: You are signed in"), "\(result.stdout)")

        // It used a throwaway service name in this session's keyring and removed its item.
        let service = try #require(
            result.stdout.firstMatch(of: /service (tokenkeyring-demo\.[0-9a-f]{8})/).map { String($0.1) })
        let leftovers = try await TestKeyring.keyring.items(matching: ["service": service])
        #expect(leftovers.isEmpty)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only when `scripts/test` sets `TOKENKEYRING_RUN_DEMO=1`: a bare `swift test` never installs
    /// packages, nor starts a browser.
    fileprivate static var runsTheDemo: Self {
        .enabled("runs scripts/demo, which may install Debian packages: runs under scripts/test only") {
            ProcessInfo.processInfo.environment["TOKENKEYRING_RUN_DEMO"] == "1"
        }
    }
}
