import Foundation
import Testing
import TokenCtlCommands

/// The help as a terminal of 80 columns shows it: the argument parser keeps line breaks and wraps only lines longer
/// than the terminal, so the examples and tables — the discussions' indented lines — must fit in 80 columns to be
/// shown as written.
@Suite("tokenctl's help shows its examples as written")
struct TokenCtlHelpTests {
    /// `nil` for `tokenctl` itself, else each subcommand's name, with its discussion.
    static let commands: [(name: String?, discussion: String)] =
        [(nil, TokenCtl.configuration.discussion)]
        + TokenCtl.configuration.subcommands.map { ($0.configuration.commandName, $0.configuration.discussion) }

    @Test("every indented line of every command's discussion is at most 80 columns and shown intact in its --help")
    func preformattedLinesIntact() async throws {
        for (name, discussion) in Self.commands {
            let arguments = (name.map { [$0] } ?? []) + ["--help"]
            let help = try await tokenctl(arguments, environment: ["COLUMNS": "80"])
            #expect(help.status == 0, "\(arguments): \(help.allOutput)")
            let shown = Set(help.stdout.split(separator: "\n", omittingEmptySubsequences: false))
            for line in discussion.split(separator: "\n") where line.hasPrefix(" ") {
                #expect(line.count <= 80, "\(name ?? "tokenctl"): \(line.count) columns: \(line)")
                #expect(shown.contains(line), "\(name ?? "tokenctl"): not shown as written: \(line)")
            }
        }
    }

    @Test("login's examples read as shell commands, continued with a backslash")
    func loginExamples() async throws {
        let help = try await tokenctl(["login", "--help"], environment: ["COLUMNS": "80"])
        #expect(help.status == 0, "\(help.allOutput)")
        for example in [
            """
              tokenctl login --service S --account A \\
                --issuer https://auth.example.com --client-id ID --scope "openid profile"
            """,
            """
              tokenctl login --service S --account A --client-id ID \\
                --authorization-url https://auth.example.com/authorize \\
                --token-url https://auth.example.com/token
            """,
            """
              printf '%s\\n' "$SECRET" "$PASSWORD" | tokenctl login --service S \\
                --account A --token-url URL --client-id ID --client-secret-stdin \\
                --username U --password-stdin
            """,
        ] {
            #expect(help.stdout.contains(example + "\n"), "\(example)")
        }
    }
}
