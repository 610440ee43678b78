import Foundation
import Testing

/// The example in `Keyring.changes()`'s documentation comment cannot be compiled where it is, so it is the `changes`
/// slice of `Snippets/KeyringBasics.swift`, which `swift build` compiles.
@Suite("The example of Keyring.changes()")
struct ChangesExampleTests {
    /// The package's root directory.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("is exactly the snippet's changes slice, which the package builds")
    func documentationShowsTheCompiledSnippet() throws {
        let source = try text("Sources/Keyring/Keyring+Changes.swift")
        let snippet = try text("Snippets/KeyringBasics.swift")
        let sourceLines: [String] = source.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let block: [String] = Array(sourceLines.drop { $0 != "/// ```swift" }.dropFirst().prefix { $0 != "/// ```" })
        let documented: [String] = block.map { $0 == "///" ? "" : String($0.dropFirst(4)) }
        let snippetLines: [String] = snippet.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let slice: [String] = Array(
            snippetLines.drop { $0 != "// snippet.changes" }.dropFirst().prefix { $0 != "// snippet.end" })
        #expect(slice.count > 3)
        #expect(documented == slice, "the example in Keyring+Changes.swift differs from the snippet's changes slice")
    }
}
