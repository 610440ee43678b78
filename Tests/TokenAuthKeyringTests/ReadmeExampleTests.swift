import Foundation
import Testing

@Suite("The README's library example")
struct ReadmeExampleTests {
    /// The package's root directory.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("is exactly Examples/ReadmeExample/main.swift, which the package builds")
    func readmeShowsTheCompiledExample() throws {
        let readme = try text("README.md")
        let example = try text("Examples/ReadmeExample/main.swift")
        let section = try #require(readme.range(of: "## Using the library")).upperBound
        // The Swift blocks of the section: the first is the manifest, the second the example.
        let blocks = readme[section...].components(separatedBy: "```swift\n").dropFirst()
            .map { $0.components(separatedBy: "```").first ?? "" }
        try #require(blocks.count >= 2)
        #expect(blocks[blocks.startIndex + 1] == example, "README.md's second Swift block under “Using the library” differs")
    }

    @Test("shows the stored format's table exactly as the keyring item article does")
    func readmeShowsTheArticlesFormatTable() throws {
        /// The Markdown table that starts with the format table's header row.
        func formatTable(_ text: String) throws -> [Substring] {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let start = try #require(lines.firstIndex(of: "| field | required | meaning |"))
            return Array(lines[start...].prefix { $0.hasPrefix("|") })
        }
        let readme = try formatTable(text("README.md"))
        let article = try formatTable(text("Sources/TokenAuth/TokenAuth.docc/TheKeyringItem.md"))
        #expect(readme.count > 10)
        #expect(readme == article, "README.md and TheKeyringItem.md show different stored-format tables")
    }
}
