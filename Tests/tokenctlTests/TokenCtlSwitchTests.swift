import Foundation
import Keyring
import KeyringTestSupport
import TestSupport
import Testing
import TokenAuth

/// `tokenctl switch`: a default account per service, used when `--account` is left out.
@Suite("tokenctl switch and the default account", .needsSecretService)
struct TokenCtlSwitchTests {
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
            #expect(try mode(file.deletingLastPathComponent().path) == 0o700)
            #expect(try mode(file.path) == 0o600)
            let names = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
            #expect(names == ["default-accounts.json"], "no temporary file is left")

            // As earlier versions wrote it: readable by others, which a record that holds no secret may be.
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            #expect(try await tokenctl(["token"] + item, environment: environment).stdout == "token-of-bob\n")
            #expect(try await tokenctl(["switch", "--account", "ada"] + item, environment: environment).status == 0)
            #expect(try mode(file.path) == 0o600, "rewritten private")
        }
    }

    @Test("the default accounts' file is reached through no link: a link at the file or its directory is refused, exit 4, and what it points at is unchanged")
    func linksRefused() async throws {
        try await withAdaAndConfiguration { service, config, environment in
            let directory = config.appendingPathComponent("tokenctl")
            let file = directory.appendingPathComponent("default-accounts.json")
            let item = ["--service", service, "--account", "ada", "--no-prompt"]

            // A link planted at the file.
            let elsewhere = config.appendingPathComponent("elsewhere.json")
            let planted = #"{"other.example":"zed"}"#
            try planted.write(to: elsewhere, atomically: false, encoding: .utf8)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: elsewhere.path)
            let atFile = try await tokenctl(["switch"] + item, environment: environment)
            #expect(atFile.status == 4, "\(atFile.allOutput)")
            #expect(atFile.stderr.contains("could not use \(file.path): it is a symbolic link."), "\(atFile.stderr)")
            #expect(try String(contentsOf: elsewhere, encoding: .utf8) == planted)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: file.path) == elsewhere.path, "the link is left")

            // A link planted at the directory.
            try FileManager.default.removeItem(at: directory)
            let real = config.appendingPathComponent("real")
            try FileManager.default.createDirectory(at: real, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try FileManager.default.createSymbolicLink(atPath: directory.path, withDestinationPath: real.path)
            let atDirectory = try await tokenctl(["switch"] + item, environment: environment)
            #expect(atDirectory.status == 4, "\(atDirectory.allOutput)")
            #expect(atDirectory.stderr.contains("could not use \(directory.path): it is a symbolic link."), "\(atDirectory.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: real.path).isEmpty, "nothing written where it points")
        }
    }

    @Test("a default accounts' file that cannot be used: a command without --account exits 4 naming it and its fix, not sending the user to `switch`, which fails on it too")
    func unusableFileNamed() async throws {
        try await withAdaAndConfiguration { service, config, environment in
            let directory = config.appendingPathComponent("tokenctl")
            let file = directory.appendingPathComponent("default-accounts.json")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            let broken = #"{"\#(service)": "#
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data(broken.utf8), attributes: [.posixPermissions: 0o600]))
            let item = ["--service", service, "--no-prompt"]

            let token = try await tokenctl(["token"] + item, environment: environment)
            #expect(token.status == 4, "\(token.allOutput)")
            #expect(token.stdout.isEmpty)
            #expect(token.stderr.contains("The file of default accounts \(file.path) could not be used"), "\(token.stderr)")
            #expect(token.stderr.contains("Correct it, or remove it"), "\(token.stderr)")
            #expect(!token.stderr.contains("tokenctl switch"), "switch fails on the same file: \(token.stderr)")
            #expect(try await tokenctl(["switch", "--account", "ada"] + item, environment: environment).status == 4)

            // --account needs no default: it still works, and the file is left as it was.
            let named = try await tokenctl(["token", "--account", "ada"] + item, environment: environment)
            #expect(named.status == 0, "\(named.allOutput)")
            #expect(named.stdout == "token-of-ada\n")
            #expect(try String(contentsOf: file, encoding: .utf8) == broken)
        }
    }

    /// Runs `body` with an item `ada` of a service of its own, fresh for an hour and more, and a configuration
    /// directory of its own (`XDG_CONFIG_HOME` in `environment`), where tokenctl keeps the default accounts.
    private func withAdaAndConfiguration(
        _ body: (_ service: String, _ config: URL, _ environment: [String: String?]) async throws -> Void
    ) async throws {
        let service = TestKeyring.uniqueService()
        let config = try TemporaryDirectory()
        try await cleaningUp({ _ = try? await TestKeyring.keyring.delete(["service": service, "account": "ada"]) }) {
            let bundle = #"{"version":1,"access_token":"token-of-ada","expires_at":"2099-01-01T00:00:00Z"}"#
            try await TestKeyring.keyring.store(bundle, label: "x", attributes: ["service": service, "account": "ada"])
            try await body(service, config.url, ["XDG_CONFIG_HOME": config.url.path])
        }
    }

    private func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }
}
