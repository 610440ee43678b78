import Foundation
import Testing
import TokenCtlBase

/// `--version`: one constant for both executables (``TokenCtlVersion``), held to CHANGELOG.md, where releases are
/// made. (tokenctlTests' `TokenCtlVersionTests` runs both executables.)
@Suite("tokenctl's version, held to CHANGELOG.md")
struct ChangelogVersionTests {
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
}
