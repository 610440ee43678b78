import ChildProcesses
import Foundation
import Keyring
import KeyringTestSupport
import TestSupport
import Testing

/// A token that could not be written is no success, and a closed standard stream never lends its number to a file or
/// socket that the token would then be written into (`StandardStreams`).
@Suite("tokenctl with standard output full or closed, and standard input closed", .needsSecretService)
struct TokenCtlStandardStreamsTests {
    static let token = "stream-test-access-token"
    static let bundle = #"{"version":1,"access_token":"\#(token)","expires_at":"2099-01-01T00:00:00Z","token_endpoint":"https://auth.example.org/token","client_id":"c"}"#

    /// Runs `tokenctl` with `arguments` through `sh`, which applies `redirection` (`>/dev/full`, `>&-`) first.
    func tokenctl(_ arguments: [String], _ redirection: String) async throws -> ChildResult {
        let path = try tokenctlPath()
        return try await runCommand(
            "/bin/sh", ["-c", "exec \"$0\" \"$@\" \(redirection)", path] + arguments, timeout: .seconds(30))
    }

    /// Runs `body` with a fresh item of `service` and account `ada`.
    func withItem(_ body: (String) async throws -> Void) async throws {
        let service = TestKeyring.uniqueService()
        try await cleaningUp({ _ = try? await TestKeyring.keyring.delete(["service": service, "account": "ada"]) }) {
            try await TestKeyring.keyring.store(Self.bundle, label: "x", attributes: ["service": service, "account": "ada"])
            try await body(service)
        }
    }

    @Test("tokenctl token to a full disk (>/dev/full): exit 74, the reason, and never the token", arguments: [false, true])
    func tokenToFullDisk(throughFullCommand: Bool) async throws {
        try await withItem { service in
            // `--service=S` is a spelling only the argument parser reads: the same call, run by tokenctl-full.
            let serviceArguments = throughFullCommand ? ["--service=\(service)"] : ["--service", service]
            let result = try await tokenctl(["token", "--no-prompt"] + serviceArguments + ["--account", "ada"], ">/dev/full")
            #expect(result.status == 74, "\(result.stderr)")
            #expect(result.stderr.contains("Standard output could not be written"), "\(result.stderr)")
            #expect(result.stderr.contains("No space left on device"), "\(result.stderr)")
            #expect(!result.stderr.contains(Self.token))
        }
    }

    @Test("tokenctl token with standard output closed (>&-): exit 74, the token written nowhere else")
    func tokenToClosedOutput() async throws {
        try await withItem { service in
            let result = try await tokenctl(["token", "--service", service, "--account", "ada", "--no-prompt"], ">&-")
            #expect(result.status == 74, "\(result.stderr)")
            #expect(result.stderr.contains("Standard output could not be written (Bad file descriptor)"), "\(result.stderr)")
            #expect(!result.stderr.contains(Self.token))
        }
    }

    @Test("tokenctl status to a full disk: exit 74 after the command's own success")
    func statusToFullDisk() async throws {
        try await withItem { service in
            let result = try await tokenctl(["status", "--service", service, "--no-prompt"], ">/dev/full")
            #expect(result.status == 74, "\(result.stderr)")
            #expect(result.stderr.contains("Standard output could not be written"), "\(result.stderr)")
        }
    }

    @Test("tokenctl import with standard input closed (<&-): exit 65, saying it is closed")
    func importFromClosedInput() async throws {
        let service = TestKeyring.uniqueService()
        let result = try await tokenctl(["import", "--service", service, "--account", "ada", "--no-prompt"], "<&-")
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("Standard input is closed"), "\(result.stderr)")
        #expect(try await TestKeyring.keyring.lookup(["service": service, "account": "ada"]) == nil)
    }
}
