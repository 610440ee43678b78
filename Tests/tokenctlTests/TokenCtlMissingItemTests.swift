import Foundation
import KeyringTestSupport
import Testing

/// One sentence for an item that is not stored, whichever command meets it, with both fixes.
@Suite("tokenctl says the same of a missing item everywhere", .needsSecretService)
struct TokenCtlMissingItemTests {
    @Test("token, refresh, request, show, status --account, logout and delete: exit 3 and the same sentence, names quoted for the shell")
    func oneSentence() async throws {
        let service = TestKeyring.uniqueService()
        let account = "ada lovelace"
        let item = ["--service", service, "--account", account, "--no-prompt"]
        let expected = "tokenctl: No credentials are stored for account \"\(account)\" on service \"\(service)\". "
            + "Sign in with `tokenctl login --service \(service) --account 'ada lovelace' …`, or store tokens you have "
            + "with `tokenctl import --service \(service) --account 'ada lovelace'` (on standard input).\n"
        for arguments in [
            ["token"] + item, ["refresh"] + item, ["request"] + item + ["https://api.example.com/me"], ["show"] + item,
            ["status", "--service", service, "--account", account, "--no-prompt"], ["logout"] + item, ["delete"] + item,
        ] {
            let result = try await tokenctl(arguments)
            #expect(result.status == 3, "\(arguments[0]): \(result.allOutput)")
            #expect(result.stderr == expected, "\(arguments[0])")
            #expect(result.stdout.isEmpty, "\(arguments[0])")
        }

        let none = try await tokenctl(["status", "--service", service, "--no-prompt"])
        #expect(none.status == 3, "\(none.allOutput)")
        #expect(none.stderr.contains("Sign in with `tokenctl login --service \(service) --account NAME …`, or store "
            + "tokens you have with `tokenctl import --service \(service) --account NAME`"), "\(none.stderr)")
    }
}
