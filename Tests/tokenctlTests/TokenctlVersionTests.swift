import Foundation
import KeyringTestSupport
import TestSupport
import Testing
import TokenCtlBase

/// `--version`: one constant for both executables (``TokenCtlVersion``), held to CHANGELOG.md, where releases are
/// made.
@Suite("tokenctl --version")
struct TokenctlVersionTests {
    /// The `## ` headings of CHANGELOG.md, newest first.
    static func changelogSections() throws -> [String] {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: repository.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        return text.split(separator: "\n").filter { $0.hasPrefix("## ") }.map { String($0.dropFirst(3)) }
    }

    /// `X.Y.Z` as numbers, or `nil`.
    static func numbers(_ version: some StringProtocol) -> [Int]? {
        let parts = version.split(separator: ".").map { Int($0) }
        guard parts.count == 3, parts.allSatisfy({ $0 != nil }) else { return nil }
        return parts.compactMap { $0 }
    }

    @Test("the version follows CHANGELOG.md: X.Y.Z-dev above the newest release while Unreleased tops it, else that release")
    func versionMatchesChangelog() throws {
        let sections = try Self.changelogSections()
        let newest = try #require(sections.first, "CHANGELOG.md has no `## ` section")
        let released = sections.compactMap { heading in
            Self.numbers(heading.prefix { !$0.isWhitespace })
        }
        let version = TokenCtlVersion.current
        if newest == "Unreleased" {
            #expect(version.hasSuffix("-dev"), "\(version): not released, so a -dev version")
            let base = try #require(Self.numbers(version.dropLast("-dev".count)), "\(version) is not X.Y.Z-dev")
            if let last = released.first {
                #expect(base.lexicographicallyPrecedes(last) == false && base != last, "\(version) is above \(last)")
            }
        } else {
            #expect(Self.numbers(newest.prefix { !$0.isWhitespace }) == Self.numbers(version), "\(version) is \(newest)")
        }
    }

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
