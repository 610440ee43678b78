import Foundation
import KeyringTestSupport
import TestSupport
import Testing

/// gnome-keyring loads every collection but the login one locked when it starts, and shows the items of a
/// collection loaded that way with hashed attributes only (`gkr:compat:hashed:NAME`, the MD5 of the value) until it
/// is unlocked. Our items there were taken for another tool's and reported absent.
@Suite("gnome-keyring: a collection that is locked from the start", .needsPrivateProvider)
struct TokenCtlLockedAtStartTests {
    @Test("an item in a collection gnome-keyring loaded locked is reported locked, import over it writes nothing, and list and status show it")
    func lockedFromTheStart() async throws {
        let provider = TestProvider.current
        try #require(provider == .gnomeKeyring, "this test copies gnome-keyring's files; the run's provider is \(provider.rawValue)")
        let data = try #require(ProcessInfo.processInfo.environment["XDG_DATA_HOME"], "scripts/test sets XDG_DATA_HOME")
        let temporary = try TemporaryDirectory()
        defer { withExtendedLifetime(temporary) {} }
        let seed = temporary.url
        let service = TestKeyring.uniqueService()
        let item = ["--service", service, "--account", "ada"]

        // A collection of this run's gnome-keyring, with our item in it, copied as a file for a second gnome-keyring.
        let label = "seed-\(UUID().uuidString.prefix(8))"
        try await TestKeyring.withCollection(label: label) { collection in
            let stored = try await TestKeyring.secretTool(
                ["store", "--label=L", "--collection=\(collection.path)", "service", service, "account", "ada"],
                stdin: #"{"version":1,"access_token":"from-the-seed"}"#)
            try #require(stored.status == 0, "\(stored.stderr)")
            let file = URL(fileURLWithPath: data).appendingPathComponent("keyrings/\(label).keyring")
            try FileManager.default.copyItem(at: file, to: seed.appendingPathComponent(file.lastPathComponent))
        }

        try await PrivateProvider.with(.gnomeKeyring, environment: ["TOKENKEYRING_SEED_KEYRINGS": seed.path]) { keyring in
            let environment: [String: String?] = ["DBUS_SESSION_BUS_ADDRESS": keyring.address]
            // The premise: the item is there, locked, its attributes hashed.
            let search = try await runCommand("/usr/bin/gdbus", [
                "call", "--address", keyring.address, "--dest", "org.freedesktop.secrets", "--object-path",
                "/org/freedesktop/secrets", "--method", "org.freedesktop.Secret.Service.SearchItems",
                "{'service': '\(service)', 'account': 'ada'}",
            ])
            let path = try #require(search.stdout.firstMatch(of: /'(\/org\/freedesktop\/secrets\/collection\/[^']+)'/)?.1,
                                    "\(search.stdout) \(search.stderr)")
            #expect(search.stdout.hasPrefix("(@ao [], ["), "found unlocked: \(search.stdout)")
            let attributes = try await runCommand("/usr/bin/gdbus", [
                "call", "--address", keyring.address, "--dest", "org.freedesktop.secrets", "--object-path", String(path),
                "--method", "org.freedesktop.DBus.Properties.Get", "org.freedesktop.Secret.Item", "Attributes",
            ])
            try #require(attributes.stdout.contains("gkr:compat:hashed:service"), "\(attributes.stdout) \(attributes.stderr)")

            let shown = try await tokenctl(["show", "--no-prompt", "--timeout", "10"] + item, environment: environment)
            #expect(shown.status == 4, "\(shown.allOutput)")
            #expect(shown.stderr.contains("locked"), "\(shown.stderr)")
            let imported = try await tokenctl(
                ["import", "--no-prompt", "--timeout", "10"] + item, stdin: #"{"version":1,"access_token":"over-it"}"#,
                environment: environment)
            #expect(imported.status == 4, "\(imported.allOutput)")
            let searchedAgain = try await runCommand("/usr/bin/gdbus", [
                "call", "--address", keyring.address, "--dest", "org.freedesktop.secrets", "--object-path",
                "/org/freedesktop/secrets", "--method", "org.freedesktop.Secret.Service.SearchItems",
                "{'service': '\(service)', 'account': 'ada'}",
            ])
            #expect(searchedAgain.stdout == search.stdout, "import wrote an item beside the locked one")

            // Listed, locked, its name hidden: never "no accounts".
            let listed = try await tokenctl(["list", "--service", service, "--json", "--no-prompt"], environment: environment)
            #expect(listed.status == 0, "\(listed.allOutput)")
            let rows = try listed.json(as: [[String: Any]].self)
            #expect(rows.map { $0["locked"] as? Bool } == [true], "\(listed.stdout)")
            #expect(rows.first?["account"] as? String == "", "\(listed.stdout)")
            let text = try await tokenctl(["list", "--service", service, "--no-prompt"], environment: environment)
            #expect(text.stdout.hasPrefix("(name hidden until the keyring is unlocked)\t"), "\(text.allOutput)")
            #expect(text.stdout.contains("\tlocked"), "\(text.stdout)")
            let status = try await tokenctl(["status", "--service", service, "--no-prompt"], environment: environment)
            #expect(status.status == 0, "\(status.allOutput)")
            #expect(status.stdout.hasPrefix("(name hidden until the keyring is unlocked)\tkeyring locked"), "\(status.stdout)")
        }
    }
}
