import Foundation
import Keyring
import KeyringTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthKeyring

/// `tokenctl status --service S`: every account and the state of its sign-in, read without refreshing anything.
@Suite("tokenctl status lists a service's accounts", .needsSecretService)
struct TokenCtlStatusTests {
    @Test("valid, needs refresh, sign-in required (ended, or expired with nothing to refresh with), unreadable; nothing refreshed")
    func everyState() async throws {
        let service = TestKeyring.uniqueService()
        let accounts = ["ada", "bob", "carol", "dave", "erin"]
        try await cleaningUp({
            for account in accounts { _ = try? await TestKeyring.keyring.delete(["service": service, "account": account]) }
        }) {
            let endpoint = "https://auth.example.org/token"
            let bundles = [
                "ada": #"{"version":1,"access_token":"a","expires_at":"2099-01-01T00:00:00Z","refresh_token":"r","token_endpoint":"\#(endpoint)","client_id":"c"}"#,
                "bob": #"{"version":1,"access_token":"b","expires_at":"2001-01-01T00:00:00Z","refresh_token":"r","token_endpoint":"\#(endpoint)","client_id":"c"}"#,
                "carol": #"{"version":1,"access_token":"c","token_endpoint":"\#(endpoint)","client_id":"c","issuer":"https://issuer.example","sub":"1","ended":"a refresh answered for another account"}"#,
                "dave": #"{"version":1,"access_token":"d","expires_at":"2001-01-01T00:00:00Z","token_endpoint":"\#(endpoint)","client_id":"c","client_secret":"s"}"#,
                "erin": #"{"version":7,"access_token":"e"}"#,
            ]
            for (account, bundle) in bundles {
                try await TestKeyring.keyring.store(bundle, label: "x", attributes: ["service": service, "account": account])
            }

            let text = try await tokenctl(["status", "--service", service, "--no-prompt"])
            #expect(text.status == 0, "\(text.stderr)")
            let lines = text.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 5)
            #expect(lines[0].hasPrefix("ada\tvalid until "))
            #expect(lines[1] == "bob\tneeds refresh (the next use refreshes it)")
            #expect(lines[2] == "carol\tsign-in required: a refresh answered for another account")
            #expect(lines[3].hasPrefix("dave\tsign-in required: "), "a user's token is never renewed with the client's secret")
            #expect(lines[4].hasPrefix("erin\tunreadable: "))

            let json = try await tokenctl(["status", "--service", service, "--json", "--no-prompt"])
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            #expect(rows.map { $0["state"] as? String } == ["valid", "needs_refresh", "sign_in_required", "sign_in_required", "unreadable"])
            #expect(rows[0]["expires_at"] as? String == "2099-01-01T00:00:00Z")

            // Nothing was written: the items are as stored.
            for (account, bundle) in bundles {
                #expect(try await TestKeyring.keyring.lookup(["service": service, "account": account])?.secret == bundle)
            }
            // One account in full, as show.
            let one = try await tokenctl(["status", "--service", service, "--account", "ada", "--no-prompt"])
            #expect(one.status == 0)
            #expect(one.stdout.contains("account:"), "\(one.stdout)")
        }
    }

    @Test("a service with no accounts: exit 3 and how to sign in")
    func noAccounts() async throws {
        let result = try await tokenctl(["status", "--service", TestKeyring.uniqueService(), "--no-prompt"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("No accounts are stored"))
    }
}
