import Foundation
import KeyringTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthKeyring

/// `tokenctl import` refuses input that is not what it claims — exit 65, a sentence naming what is wrong, nothing
/// stored — and reads no more of standard input than its limit and one byte. What is stored is read back through
/// the store itself.
@Suite("tokenctl import refuses input that is not what it claims, and reads a bounded standard input",
       .needsSecretService)
struct TokenCtlRefusedInputTests {
    struct Refused: CustomTestStringConvertible, Sendable {
        let name: String
        let stdin: String
        /// What the sentence on stderr must say.
        let says: String
        var testDescription: String { name }
    }

    /// Runs `body` with a service of its own, and deletes its item afterwards, also when `body` throws.
    func withItem(_ function: String = #function, _ body: ([String], KeyringAuthStore) async throws -> Void) async throws {
        let service = TestKeyring.uniqueService(function)
        try await cleaningUp({ _ = try? await TestKeyring.keyring.delete(["service": service, "account": "ada"]) }) {
            try await body(
                ["--service", service, "--account", "ada"],
                KeyringAuthStore(service: service, account: "ada", keyring: TestKeyring.keyring))
        }
    }

    @Test("each exits 65 with a sentence naming what is wrong, and nothing is stored", arguments: [
        Refused(name: "JSON null (what jq -r prints for a missing member)", stdin: "null\n", says: "it is JSON null"),
        Refused(name: "a trailing comma", stdin: #"{"access_token":"tctl-a","expires_in":3600,}"#,
                says: "a comma before a closing"),
        Refused(name: "an expires_in that is no number", stdin: #"{"access_token":"tctl-a","expires_in":"soon"}"#,
                says: "\"expires_in\" is not a number of seconds"),
        Refused(name: "a date that does not exist", stdin: #"{"version":1,"access_token":"tctl-a","expires_at":"2030-02-30T00:00:00Z"}"#,
                says: "\"expires_at\" is not an RFC 3339 date"),
        Refused(name: "a five-digit year", stdin: #"{"version":1,"access_token":"tctl-a","expires_at":"20300-01-01T00:00:00Z"}"#,
                says: "\"expires_at\" is not an RFC 3339 date"),
        Refused(name: "an ftp token endpoint",
                stdin: #"{"version":1,"access_token":"tctl-a","refresh_token":"tctl-r","token_endpoint":"ftp://auth.example.org/token","client_id":"app"}"#,
                says: "\"token_endpoint\" is neither https nor http on a loopback host"),
    ])
    func refused(_ input: Refused) async throws {
        try await withItem { item, store in
            let result = try await tokenctl(["import"] + item, stdin: input.stdin)
            #expect(result.status == 65, "\(result.allOutput)")
            #expect(result.stderr.hasPrefix("tokenctl: The input is not usable credentials: "), "\(result.stderr)")
            #expect(result.stderr.contains(input.says), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(!result.allOutput.contains("tctl-a"), "no token is quoted")
            #expect(try await store.loadCredentials() == nil, "nothing was stored")
        }
    }

    @Test("--token-url of another scheme than https is a usage error before anything is stored")
    func insecureTokenURL() async throws {
        try await withItem { item, store in
            for url in ["ftp://auth.example.org/token", "http://auth.example.org/token"] {
                let result = try await tokenctl(
                    ["import"] + item + ["--token-url", url, "--client-id", "app"], stdin: "tctl-bare-token")
                #expect(result.status == 64, "\(url): \(result.allOutput)")
                #expect(result.stderr.contains("--token-url must use https://"), "\(result.stderr)")
                #expect(try await store.loadCredentials() == nil, "nothing was stored")
            }
            let loopback = try await tokenctl(
                ["import"] + item + ["--token-url", "http://127.0.0.1:9/token", "--client-id", "app"], stdin: "tctl-bare-token")
            #expect(loopback.status == 0, "plain http on loopback is allowed: \(loopback.allOutput)")
        }
    }

    @Test("an endless standard input (</dev/zero) is refused once it passes 64 KiB, well within the command's time limit")
    func endlessInput() async throws {
        try await withItem { item, store in
            let result = try await runCommand(
                "/bin/sh", ["-c", #"exec "$0" "$@" </dev/zero"#, try tokenctlPath(), "import"] + item,
                timeout: .seconds(30))
            #expect(result.status == 65, "killed at its time limit (-1) when it reads to the end: \(result.allOutput)")
            #expect(result.stderr.contains("Standard input is larger than 65536 bytes"), "\(result.stderr)")
            #expect(try await store.loadCredentials() == nil)
        }
    }

    @Test("64 KiB and one byte are refused; of a larger file no more than that is read")
    func boundedRead() async throws {
        try await withItem { item, store in
            let over = try await tokenctl(["import"] + item, stdin: String(repeating: "a", count: 64 * 1024 + 1))
            #expect(over.status == 65, "\(over.allOutput)")
            #expect(over.stderr.contains("Standard input is larger than 65536 bytes"), "\(over.stderr)")

            // Standard input from a 1 MiB file, opened by the shell: the child shares its offset, which then says how
            // much the child read.
            let directory = try TemporaryDirectory()
            defer { withExtendedLifetime(directory) {} }
            let file = directory.url.appendingPathComponent("large").path
            try Data(count: 1024 * 1024).write(to: URL(fileURLWithPath: file))
            let script = #"exec 3<"$1"; "$0" import --service "$2" --account ada <&3; echo "exit $?"; grep '^pos:' /proc/self/fdinfo/3"#
            let result = try await runCommand(
                "/bin/sh", ["-c", script, try tokenctlPath(), file, item[1]], timeout: .seconds(30))
            #expect(result.stdout.contains("exit 65"), "\(result.allOutput)")
            let position = result.stdout.split(separator: "\n").first { $0.hasPrefix("pos:") }
                .flatMap { Int($0.dropFirst("pos:".count).trimmingCharacters(in: .whitespaces)) }
            #expect(position == 64 * 1024 + 1, "bytes read of 1 MiB: \(position.map(String.init) ?? result.stdout)")
            #expect(try await store.loadCredentials() == nil)
        }
    }
}
