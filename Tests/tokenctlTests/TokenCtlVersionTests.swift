import Foundation
import TestSupport
import Testing
import TokenCtlBase

/// `--version` of both executables: the constant that TokenCtlBaseTests' `ChangelogVersionTests` holds to CHANGELOG.md.
@Suite("tokenctl --version")
struct TokenCtlVersionTests {
    @Test("tokenctl and tokenctl-full print it and exit 0; tokenctl does without tokenctl-full")
    func bothExecutables() async throws {
        let full = try #require(BuiltExecutable.path("tokenctl-full"), "run `swift build --build-tests`")
        for path in [try tokenctlPath(), full] {
            let result = try await runCommand(path, ["--version"], timeout: .seconds(30))
            #expect(result.status == 0, "\(path): \(result.allOutput)")
            #expect(result.stdout == TokenCtlVersion.current + "\n", "\(path)")
            #expect(result.stderr.isEmpty, "\(path)")
        }

        let alone = try TemporaryDirectory()
        let copy = alone.url.appendingPathComponent("tokenctl").path
        try FileManager.default.copyItem(atPath: try tokenctlPath(), toPath: copy)
        let version = try await runCommand(copy, ["--version"], timeout: .seconds(30))
        #expect(version.status == 0, "\(version.allOutput)")
        #expect(version.stdout == TokenCtlVersion.current + "\n")
        // Anything else needs tokenctl-full, and says how to build it in a checkout.
        let help = try await runCommand(copy, ["--help"], timeout: .seconds(30))
        #expect(help.status == 64)
        #expect(help.stderr.contains("swift build --product tokenctl-full"), "\(help.stderr)")
    }
}
