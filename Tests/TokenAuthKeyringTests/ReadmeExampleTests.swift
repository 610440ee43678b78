import Foundation
import Testing
import TokenAuth
@testable import TokenAuthKeyring

@Suite("The README's library example, and the stored format's table")
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

    /// The Markdown table that starts with the stored format table's header row, or `nil` when `text` has none.
    func formatTable(_ text: String) -> [Substring]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "| field | required | meaning |") else { return nil }
        return Array(lines[start...].prefix { $0.hasPrefix("|") })
    }

    @Test("the keyring item article's format table names every member a full bundle is written with, and nothing else")
    func articleTableNamesEveryStoredMember() throws {
        let article = try #require(formatTable(text("Sources/TokenAuth/TokenAuth.docc/TheKeyringItem.md")))
        // The first cell of each row after the header and the rule: one or more `member` names.
        let documented = try article.dropFirst(2).flatMap { row in
            let cell = try #require(row.split(separator: "|").first)
            return cell.matches(of: /`([a-z_]+)`/).map { String($0.1) }
        }
        #expect(documented.count == Set(documented).count, "a member has two rows: \(documented)")

        let issuer = URL(string: "https://auth.example.org")!
        let everything = StoredCredentials(
            auth: Auth(
                accessToken: "access", tokenType: "Bearer", refreshToken: "refresh",
                expiresAt: Date(timeIntervalSince1970: 1_800_000_000), scope: "openid read",
                issuedAt: Date(timeIntervalSince1970: 1_799_996_400),
                identity: Identity(issuer: issuer, subject: "248289761001", displayName: "ada@example.org"),
                unverifiedIDToken: "header.payload.signature", endReason: "a refresh answered for another account",
                refreshTokenExpiresAt: Date(timeIntervalSince1970: 1_815_000_000),
                refreshStartedAt: Date(timeIntervalSince1970: 1_799_999_000),
                proofKey: ProofKey(kind: .software, thumbprint: "jkt", material: "private")),
            client: OAuthClient(
                tokenEndpoint: URL(string: "https://auth.example.org/token")!, clientID: "desktop-app",
                clientSecret: "secret", authentication: .clientSecretPost,
                revocationEndpoint: URL(string: "https://auth.example.org/revoke")!, issuer: issuer,
                jwksURI: URL(string: "https://auth.example.org/jwks")!,
                userinfoEndpoint: URL(string: "https://auth.example.org/userinfo")!, usesClientCredentials: true),
            refreshedAt: Date(timeIntervalSince1970: 1_799_998_000))
        let written = try #require(
            try JSONSerialization.jsonObject(with: Data(StoredBundleFormat.encode(everything).utf8)) as? [String: Any])
        #expect(Set(documented) == Set(written.keys))
    }

    @Test("any other Markdown page that shows the stored format's table shows it exactly as the article does")
    func copiesOfTheFormatTableMatchTheArticle() throws {
        let article = try #require(formatTable(text("Sources/TokenAuth/TokenAuth.docc/TheKeyringItem.md")))
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/\($0)" }
        for page in ["README.md", "Fuzz/README.md"] + docs {
            guard let copy = try formatTable(text(page)) else { continue }
            #expect(copy == article, "\(page) and TheKeyringItem.md show different stored-format tables")
        }
    }
}
