import Foundation
import Keyring
import KeyringTestSupport
import TestSupport
import Testing
import TokenAuth

/// `tokenctl switch`: a default account per service, used when `--account` is left out.
@Suite("tokenctl switch and the default account", .needsSecretService)
struct TokenctlSwitchTests {
    @Test("switch makes an account the default: token and status use it; without one, --account is required")
    func defaultAccount() async throws {
        let service = TestKeyring.uniqueService()
        let config = try TemporaryDirectory()
        let environment: [String: String?] = ["XDG_CONFIG_HOME": config.url.path]
        try await cleaningUp({
            for account in ["ada", "bob"] { _ = try? await TestKeyring.keyring.delete(["service": service, "account": account]) }
        }) {
            for account in ["ada", "bob"] {
                let bundle = #"{"version":1,"access_token":"token-of-\#(account)","expires_at":"2099-01-01T00:00:00Z"}"#
                try await TestKeyring.keyring.store(bundle, label: "x", attributes: ["service": service, "account": account])
            }
            let item = ["--service", service, "--no-prompt"]

            let undecided = try await tokenctl(["token"] + item, environment: environment)
            #expect(undecided.status == 64)
            #expect(undecided.stderr.contains("tokenctl switch"), "\(undecided.stderr)")

            let unknown = try await tokenctl(["switch", "--account", "carol"] + item, environment: environment)
            #expect(unknown.status == 3)
            #expect(!FileManager.default.fileExists(atPath: config.url.appendingPathComponent("tokenctl").path))

            #expect(try await tokenctl(["switch", "--account", "bob"] + item, environment: environment).status == 0)
            let token = try await tokenctl(["token"] + item, environment: environment)
            #expect(token.status == 0, "\(token.stderr)")
            #expect(token.stdout == "token-of-bob\n")
            // --account still wins.
            let ada = try await tokenctl(["token", "--account", "ada"] + item, environment: environment)
            #expect(ada.stdout == "token-of-ada\n")
            let status = try await tokenctl(["status"] + item, environment: environment)
            #expect(status.stdout.split(separator: "\n").map(String.init).filter { $0.hasSuffix("(default)") }.count == 1)
            #expect(status.stdout.contains("bob\tvalid until "))

            let file = config.url.appendingPathComponent("tokenctl/default-accounts.json")
            let choices = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: file))
            #expect(choices == [service: "bob"])
            let mode = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)[.posixPermissions]
            #expect(mode as? Int == 0o700)
        }
    }
}
