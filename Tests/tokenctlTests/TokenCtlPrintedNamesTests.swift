import ChildProcesses
import Foundation
import Keyring
import KeyringTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthKeyring

/// A service or account name is text anyone may have put in the keyring, or on a command line from a script: every
/// command shows it without the escape sequences in it, on stdout and in every sentence on stderr.
@Suite("tokenctl prints service and account names without escape sequences", .needsSecretService)
struct TokenCtlPrintedNamesTests {
    /// Retitles the terminal, then clears it, if printed as it is.
    static let hostile = "x\u{1B}]0;PWNED\u{07}\u{1B}[2J"

    /// Whether `text` holds a control character other than a line break or a tab: ESC and BEL among them.
    static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value) }
    }

    /// No control character in what `command` printed, and, unless it printed JSON, nothing of the sequences.
    func expectClean(
        _ result: ChildResult, _ command: String, json: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!Self.hasControlCharacters(result.allOutput), "\(command) printed \(result.allOutput.debugDescription)",
                sourceLocation: sourceLocation)
        if !json {
            #expect(!result.allOutput.contains("PWNED"), "\(command): the whole sequence is removed", sourceLocation: sourceLocation)
        }
    }

    @Test("list, status, show, switch, token, logout and delete show the account and service without escapes")
    func hostileAccount() async throws {
        let service = TestKeyring.uniqueService()
        let config = try TemporaryDirectory()
        let environment: [String: String?] = ["XDG_CONFIG_HOME": config.url.path]
        try await cleaningUp({
            for account in [Self.hostile, "corrupt" + Self.hostile] {
                _ = try? await TestKeyring.keyring.delete(["service": service, "account": account])
            }
        }) {
            let item = ["--service", service, "--account", Self.hostile]
            let imported = try await tokenctl(["import"] + item, stdin: #"{"version":1,"access_token":"tctl-esc-1","expires_at":"2099-01-01T00:00:00Z"}"#)
            try #require(imported.status == 0, "\(imported.allOutput)")

            let list = try await tokenctl(["list", "--service", service])
            #expect(list.status == 0, "\(list.allOutput)")
            #expect(list.stdout.hasPrefix("x\t"), "\(list.stdout.debugDescription)")
            expectClean(list, "list")
            let listed = try await tokenctl(["list", "--service", service, "--json"])
            #expect(try listed.json(as: [[String: Any]].self).first?["account"] as? String == Self.hostile,
                    "JSON keeps the name exactly, escaped by the encoder")
            expectClean(listed, "list --json", json: true)

            let status = try await tokenctl(["status", "--service", service])
            #expect(status.stdout.hasPrefix("x\tvalid until "), "\(status.stdout.debugDescription)")
            expectClean(status, "status")

            let show = try await tokenctl(["show"] + item)
            #expect(show.status == 0, "\(show.allOutput)")
            #expect(show.stdout.contains("\naccount:        x\n"), "\(show.stdout.debugDescription)")
            expectClean(show, "show")

            let switched = try await tokenctl(["switch"] + item, environment: environment)
            #expect(switched.status == 0, "\(switched.allOutput)")
            expectClean(switched, "switch")
            let byDefault = try await tokenctl(["show", "--service", service], environment: environment)
            #expect(byDefault.stdout.contains("\naccount:        x\n"), "\(byDefault.allOutput.debugDescription)")
            expectClean(byDefault, "show with the default account")
            let absent = try await tokenctl(["switch", "--service", service, "--account", "y" + Self.hostile])
            #expect(absent.status == 3)
            #expect(absent.stderr.contains("No account \"yx\" is stored"), "\(absent.stderr.debugDescription)")
            expectClean(absent, "switch to an absent account")

            // A stored item that cannot be read: the library's sentence names the item.
            try await TestKeyring.keyring.store(
                #"{"version":1}"#, label: "x", attributes: ["service": service, "account": "corrupt" + Self.hostile])
            let corrupt = try await tokenctl(["token", "--service", service, "--account", "corrupt" + Self.hostile])
            #expect(corrupt.status == 65, "\(corrupt.allOutput)")
            #expect(corrupt.stderr.contains("corruptx"), "\(corrupt.stderr.debugDescription)")
            expectClean(corrupt, "token on an unreadable item")

            let loggedOut = try await tokenctl(["logout"] + item)
            #expect(loggedOut.status == 0, "\(loggedOut.allOutput)")
            expectClean(loggedOut, "logout")
            for command in ["logout", "delete", "show", "token"] {
                let missing = try await tokenctl([command] + item)
                #expect(missing.status == 3, "\(command): \(missing.allOutput)")
                #expect(missing.stderr.lowercased().contains("no credentials are stored for account \"x\""),
                        "\(missing.stderr.debugDescription)")
                expectClean(missing, "\(command) of an absent item")
            }
            let noAccount = try await tokenctl(["show", "--service", Self.hostile], environment: environment)
            #expect(noAccount.status == 64)
            expectClean(noAccount, "show without an account")
        }
    }

    @Test("a line break or tab in an account name is shown as \\n or \\t: list, status, show and errors print it on one line")
    func namesOnOneLine() async throws {
        let service = TestKeyring.uniqueService()
        let forged = "ada\nmallory\tforged"
        try await cleaningUp({
            _ = try? await TestKeyring.keyring.delete(["service": service, "account": forged])
        }) {
            let item = ["--service", service, "--account", forged]
            let imported = try await tokenctl(["import"] + item, stdin: #"{"version":1,"access_token":"tctl-nl-1","expires_at":"2099-01-01T00:00:00Z"}"#)
            try #require(imported.status == 0, "\(imported.allOutput)")

            let list = try await tokenctl(["list", "--service", service])
            #expect(list.status == 0, "\(list.allOutput)")
            let listed = list.stdout.split(separator: "\n")
            #expect(listed.count == 1, "one account, one line: \(list.stdout.debugDescription)")
            #expect(listed.first?.split(separator: "\t").first == #"ada\nmallory\tforged"#, "\(list.stdout.debugDescription)")

            let status = try await tokenctl(["status", "--service", service])
            #expect(status.stdout.split(separator: "\n").count == 1, "\(status.stdout.debugDescription)")
            #expect(status.stdout.hasPrefix(#"ada\nmallory\tforged"# + "\tvalid until "), "\(status.stdout.debugDescription)")

            let show = try await tokenctl(["show"] + item)
            #expect(show.stdout.contains("\naccount:        " + #"ada\nmallory\tforged"# + "\n"), "\(show.stdout.debugDescription)")

            let absent = try await tokenctl(["switch", "--service", service, "--account", "eve\nforged"])
            #expect(absent.status == 3)
            #expect(absent.stderr.split(separator: "\n").count == 1, "\(absent.stderr.debugDescription)")
            #expect(absent.stderr.contains(#"No account "eve\nforged" is stored"#), "\(absent.stderr.debugDescription)")
            let missing = try await tokenctl(["token", "--service", service, "--account", "eve\nforged"])
            #expect(missing.status == 3)
            #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr.debugDescription)")
        }
    }

    @Test("doctor shows a default collection's label without escapes", .needsPrivateProvider)
    func hostileCollectionLabel() async throws {
        try await PrivateProvider.with(.gnomeKeyring) { bus in
            let renamed = try await runCommand("/usr/bin/gdbus", [
                "call", "--address", bus.address, "--dest", "org.freedesktop.secrets",
                "--object-path", "/org/freedesktop/secrets/aliases/default",
                "--method", "org.freedesktop.DBus.Properties.Set", "org.freedesktop.Secret.Collection", "Label",
                "<'\(Self.hostile)'>",
            ])
            try #require(renamed.status == 0, "\(renamed.allOutput)")
            let doctor = try await tokenctl(["doctor"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
            #expect(doctor.status == 0, "\(doctor.allOutput)")
            #expect(doctor.stdout.contains("[ok] default collection: \"x\" ("), "\(doctor.stdout.debugDescription)")
            expectClean(doctor, "doctor")
        }
    }
}
