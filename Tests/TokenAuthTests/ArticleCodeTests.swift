import Foundation
import Testing

/// The code of the README and the articles is ordinary fenced code — what GitHub shows where the README links them,
/// and what DocC renders — and each block is exactly the compiled code its comment names, so that neither can change
/// without the other. `scripts/sync-article-code` rewrites the blocks from the files; this test fails until it ran.
///
/// A ```swift block follows a comment naming its source, which GitHub and DocC both hide:
/// `<!-- Snippets/GettingStarted.swift: session -->` (the slice between `// snippet.session` and `// snippet.end`,
/// without its common indentation), `<!-- Snippets/GettingStarted.swift -->` (the whole file without its
/// `// snippet.…` lines), or `<!-- manifest -->` (a Package.swift, whose products must be this package's).
@Suite("The documentation's code blocks are the compiled code they name")
struct ArticleCodeTests {
    /// The package's root directory.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every page with code: the README, docs/, and the DocC catalogs' articles.
    static let pages: [String] = {
        let files = FileManager.default
        var pages = ["README.md"]
        for entry in (try? files.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        where entry.hasSuffix(".md") {
            pages.append("docs/\(entry)")
        }
        for module in (try? files.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)) ?? [] {
            let catalog = "Sources/\(module)/\(module).docc"
            for entry in (try? files.contentsOfDirectory(atPath: root.appendingPathComponent(catalog).path)) ?? []
            where entry.hasSuffix(".md") {
                pages.append("\(catalog)/\(entry)")
            }
        }
        return pages.sorted()
    }()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The code a marker names: a slice of `path`, or the whole file.
    static func code(_ path: String, slice: String?) throws -> [Substring] {
        let lines = try text(path).split(separator: "\n", omittingEmptySubsequences: false)
        let marker = /^\s*\/\/ snippet\.(\w+)\s*$/
        var body: [Substring]
        if let slice {
            let starts = lines.indices.filter { lines[$0].wholeMatch(of: marker)?.1 == Substring(slice) }
            try #require(starts.count == 1, "\(path) has \(starts.count) slices named \(slice)")
            let end = try #require(
                lines[(starts[0] + 1)...].firstIndex { $0.wholeMatch(of: marker) != nil },
                "\(path): the slice \(slice) has no end")
            try #require(lines[end].wholeMatch(of: marker)?.1 == "end", "\(path): the slice \(slice) is not closed by `// snippet.end`")
            body = Array(lines[(starts[0] + 1)..<end])
        } else {
            body = lines.filter { $0.wholeMatch(of: marker) == nil }
        }
        while let first = body.first, first.allSatisfy(\.isWhitespace) { body.removeFirst() }
        while let last = body.last, last.allSatisfy(\.isWhitespace) { body.removeLast() }
        let indent = body.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return body.map { $0.dropFirst(min(indent, $0.prefix { $0 == " " }.count)) }
    }

    /// The package's library products.
    static let libraries: Set<String> = {
        let manifest = (try? text("Package.swift")) ?? ""
        return Set(manifest.matches(of: /\.library\(name: "(\w+)"/).map { String($0.1) })
    }()

    @Test("every swift block follows a comment naming its compiled source, and is exactly that code", arguments: pages)
    func blocksAreTheirSource(page: String) throws {
        let lines = try Self.text(page).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(!lines.contains { $0.hasPrefix("@Snippet(") }, "\(page) uses @Snippet, which GitHub shows as nothing")
        for (index, line) in lines.enumerated() where line.trimmingCharacters(in: .whitespaces) == "```swift" {
            let indent = line.prefix { $0 == " " }.count
            let end = try #require(
                lines[(index + 1)...].firstIndex { $0.trimmingCharacters(in: .whitespaces) == "```" },
                "\(page):\(index + 1): a swift block without its end")
            let block = lines[(index + 1)..<end].map { $0.dropFirst(min(indent, $0.prefix { $0 == " " }.count)) }
            let comment = index > 0 ? lines[index - 1].trimmingCharacters(in: .whitespaces) : ""
            if comment == "<!-- manifest -->" {
                let products = block.flatMap { $0.matches(of: /\.product\(name: "(\w+)", package: "TokenKeyring"\)/) }
                #expect(!products.isEmpty, "\(page):\(index + 1): a manifest that uses no product of TokenKeyring")
                for product in products.map({ String($0.1) }) {
                    #expect(Self.libraries.contains(product), "\(page):\(index + 1): no library product \(product)")
                }
            } else if let source = comment.wholeMatch(of: /<!-- ([\w.\/+-]+\.swift)(?:: (\w+))? -->/) {
                let expected = try Self.code(String(source.1), slice: source.2.map(String.init))
                #expect(
                    block == expected,
                    "\(page):\(index + 1) differs from \(source.1)\(source.2.map { ": \($0)" } ?? ""): run scripts/sync-article-code")
            } else {
                Issue.record("\(page):\(index + 1): a swift block without a comment naming its compiled source")
            }
        }
    }

    @Test("the pages are found: the README, Getting Started and the TokenAuth articles")
    func pagesAreFound() {
        #expect(Self.pages.contains("README.md"))
        #expect(Self.pages.contains("Sources/TokenKeyring/TokenKeyring.docc/GettingStarted.md"))
        #expect(Self.pages.contains("Sources/TokenAuth/TokenAuth.docc/TestingYourApp.md"))
    }
}
