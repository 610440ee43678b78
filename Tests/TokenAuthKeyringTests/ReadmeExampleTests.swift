import Foundation
import Testing

@Suite("The README's library example")
struct ReadmeExampleTests {
    @Test("is exactly Examples/ReadmeExample/main.swift, which the package builds")
    func readmeShowsTheCompiledExample() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let example = try String(contentsOf: root.appendingPathComponent("Examples/ReadmeExample/main.swift"), encoding: .utf8)
        let section = try #require(readme.range(of: "## Using the library")).upperBound
        // The Swift blocks of the section: the first is the manifest, the second the example.
        let blocks = readme[section...].components(separatedBy: "```swift\n").dropFirst()
            .map { $0.components(separatedBy: "```").first ?? "" }
        try #require(blocks.count >= 2)
        #expect(blocks[blocks.startIndex + 1] == example, "README.md's second Swift block under “Using the library” differs")
    }
}
