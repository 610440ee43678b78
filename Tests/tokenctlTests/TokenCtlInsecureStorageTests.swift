import ChildProcesses
import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthFileStore
import TokenAuthKeyring

/// `tokenctl` with the file store of `--insecure-storage`: chosen only with the flag (and said so every time), read by
/// every reader after the keyring, and never a silent fallback. Most tests run where no Secret Service is reachable,
/// in a state directory of their own; one needs the keyring, to show that it comes first.
@Suite("tokenctl --insecure-storage: the file store by explicit choice")
struct TokenCtlInsecureStorageTests {
    static let token = "insecure-access-3c9d1e"
    static let warning = "tokenctl: warning: --insecure-storage: the tokens are stored unencrypted in "

    /// A state, runtime and config directory of the test's own, and an environment pointing at them; without
    /// `keyring`, the session bus is a socket that does not exist.
    struct Place {
        let directory: TemporaryDirectory
        let keyring: Bool

        init(keyring: Bool) throws {
            directory = try TemporaryDirectory()
            self.keyring = keyring
        }

        var environment: [String: String?] {
            var environment: [String: String?] = [
                "XDG_STATE_HOME": directory.url.appendingPathComponent("state").path,
                "XDG_RUNTIME_DIR": directory.url.appendingPathComponent("run").path,
                "XDG_CONFIG_HOME": directory.url.appendingPathComponent("config").path,
            ]
            if !keyring {
                environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/socket"
                environment["DISPLAY"] = .some(nil)
            }
            return environment
        }

        /// The file store of this place, for `service` and `account`.
        func store(_ service: String, _ account: String = "ada") -> FileAuthStore {
            FileAuthStore(
                service: service, account: account,
                directory: directory.url.appendingPathComponent("state/tokenkeyring"))
        }

        func run(_ arguments: [String], stdin: String? = nil) async throws -> ChildResult {
            try await tokenctl(arguments, stdin: stdin, environment: environment)
        }
    }

    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("import --insecure-storage warns every time and writes a 0600 file; token, show, status and list read it and say where")
    func importThenRead() async throws {
        let place = try Place(keyring: false)
        let item = ["--service", "files.example", "--account", "ada"]
        let path = place.store("files.example").path
        for _ in 1...2 {
            let stored = try await place.run(["import", "--insecure-storage"] + item, stdin: Self.token)
            #expect(stored.status == 0, "\(stored.stderr)")
            #expect(stored.stderr.contains(Self.warning + path), "\(stored.stderr)")
        }
        #expect(try mode(path) == 0o600)
        #expect(try await place.store("files.example").load()?.accessToken == Self.token)

        let token = try await place.run(["token"] + item)
        #expect(token.status == 0, "\(token.stderr)")
        #expect(token.stdout == Self.token + "\n")
        #expect(token.stderr.isEmpty, "reading is not warned about: \(token.stderr)")

        let show = try await place.run(["show"] + item)
        #expect(show.stdout.contains("stored in:      file \(path) (unencrypted: --insecure-storage)"), "\(show.allOutput)")
        let json = try await place.run(["show", "--json"] + item).json()
        #expect(json["storage"] as? String == "file")
        #expect(json["path"] as? String == path)
        let status = try await place.run(["status", "--service", "files.example"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.hasPrefix("ada\tvalid, with no known expiry (in the file \(path), unencrypted)"), "\(status.stdout)")
        let list = try await place.run(["list", "--service", "files.example", "--json"])
        let rows = try list.json(as: [[String: Any]].self)
        #expect(rows.map { $0["storage"] as? String } == ["file"])
        #expect(!show.allOutput.contains(Self.token) && !status.allOutput.contains(Self.token), "never a token")

        let deleted = try await place.run(["delete"] + item)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
        let gone = try await place.run(["token"] + item)
        #expect(gone.status == 4, "no file, and no Secret Service: \(gone.allOutput)")
        #expect(gone.stderr.contains("No Secret Service is reachable"))
    }

    @Test("without the flag and without a Secret Service, import and login exit 4 naming --insecure-storage and the keyrings; nothing stored or sent")
    func noSilentFallback() async throws {
        let place = try Place(keyring: false)
        let item = ["--service", "files.example", "--account", "ada"]
        try await withServer(.init(clients: [.init(id: "test-client")], users: ["alice": "wonderland"])) { server in
            let imported = try await place.run(["import"] + item, stdin: Self.token)
            let login = try await place.run(
                ["login"] + item + [
                    "--token-url", server.tokenEndpoint.absoluteString, "--client-id", "test-client", "--username", "alice",
                    "--password-stdin",
                ], stdin: "wonderland\n")
            for (command, result) in [("import", imported), ("login", login)] {
                #expect(result.status == 4, "\(command): \(result.allOutput)")
                #expect(result.stderr.contains("`tokenctl \(command) --insecure-storage`"), "\(command): \(result.stderr)")
                #expect(result.stderr.contains("gnome-keyring") && result.stderr.contains("dbus-run-session"))
                #expect(result.stderr.contains("Nothing was stored"))
            }
            #expect(server.stats.tokenRequests == 0, "login stopped before signing in")
            #expect(!FileManager.default.fileExists(atPath: place.store("files.example").directory.path))
        }
    }

    @Test("login --insecure-storage stores in the file; token refreshes it through the server; logout revokes and removes it")
    func loginRefreshLogout() async throws {
        let place = try Place(keyring: false)
        let item = ["--service", "files.example", "--account", "alice"]
        try await withServer(.init(clients: [.init(id: "test-client")], users: ["alice": "wonderland"])) { server in
            let login = try await place.run(
                ["login", "--insecure-storage"] + item + [
                    "--token-url", server.tokenEndpoint.absoluteString, "--client-id", "test-client",
                    "--revocation-url", server.revocationEndpoint.absoluteString, "--username", "alice", "--password-stdin",
                ], stdin: "wonderland\n")
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.stderr.contains(Self.warning))
            let store = place.store("files.example", "alice")
            var credentials = try #require(try await store.loadCredentials())
            #expect(credentials.client?.tokenEndpoint == server.tokenEndpoint)

            // Expired, as far as tokenctl can tell: the next `token` refreshes.
            credentials.auth.issuedAt = Date(timeIntervalSinceNow: -3600)
            credentials.auth.expiresAt = Date(timeIntervalSinceNow: -1)
            try await store.save(credentials)
            let token = try await place.run(["token"] + item)
            #expect(token.status == 0, "\(token.stderr)")
            let refreshed = try #require(try await store.loadCredentials())
            #expect(token.stdout == refreshed.auth.accessToken + "\n")
            #expect(refreshed.auth.accessToken != credentials.auth.accessToken)
            #expect(refreshed.refreshedAt != nil)
            #expect(server.stats.refreshGrants == 1)

            let logout = try await place.run(["logout"] + item)
            #expect(logout.status == 0, "\(logout.stderr)")
            #expect(server.stats.revokedTokens >= 1)
            #expect(try await store.load() == nil)
        }
    }

    @Test("a file other users can read is refused by every reader with exit 4 and the chmod that fixes it")
    func openFileRefused() async throws {
        let place = try Place(keyring: false)
        let item = ["--service", "files.example", "--account", "ada"]
        #expect(try await place.run(["import", "--insecure-storage"] + item, stdin: Self.token).status == 0)
        let path = place.store("files.example").path
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        for command in ["token", "show"] {
            let result = try await place.run([command] + item)
            #expect(result.status == 4, "\(command): \(result.allOutput)")
            #expect(result.stderr.contains("chmod 600 \(path)"), "\(command): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test("a FIFO in the item's place: token exits 4 at once with a sentence, waiting for no writer")
    func fifoRefused() async throws {
        let place = try Place(keyring: false)
        let store = place.store("files.example")
        try FileManager.default.createDirectory(
            at: store.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect(mkfifo(store.path, 0o600) == 0)
        // Bounded by tokenctl's command timeout: a read that waits for a writer is killed there (status -1).
        let result = try await place.run(["token", "--service", "files.example", "--account", "ada"])
        #expect(result.status == 4, "\(result.allOutput)")
        #expect(result.stderr.contains("could not use \(store.path): it is not a regular file."), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("without XDG_STATE_HOME the files are under $HOME/.local/state, as documented, whatever the password database says")
    func followsHome() async throws {
        let place = try Place(keyring: false)
        let home = place.directory.url.appendingPathComponent("home")
        var environment = place.environment
        environment["XDG_STATE_HOME"] = .some(nil)
        environment["HOME"] = home.path
        let item = ["--service", "files.example", "--account", "ada"]
        let path = home.path + "/.local/state/tokenkeyring/files.example+ada.json"

        let stored = try await tokenctl(["import", "--insecure-storage"] + item, stdin: Self.token, environment: environment)
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(stored.stderr.contains(Self.warning + path), "\(stored.stderr)")
        #expect(FileManager.default.fileExists(atPath: path))
        let token = try await tokenctl(["token"] + item, environment: environment)
        #expect(token.status == 0, "\(token.stderr)")
        #expect(token.stdout == Self.token + "\n")
    }

    @Test("the keyring comes first: with an item in both, readers take the keyring's; delete removes it, then the file's is read",
          .needsSecretService)
    func keyringFirst() async throws {
        let place = try Place(keyring: true)
        let service = TestKeyring.uniqueService(#function)
        let item = ["--service", service, "--account", "ada", "--no-prompt"]
        try await cleaningUpKeyring(service) {
            #expect(try await place.run(["import", "--insecure-storage"] + item, stdin: "from-the-file").status == 0)
            #expect(try await place.run(["import"] + item, stdin: "from-the-keyring").status == 0)
            let warned = try await place.run(["import", "--insecure-storage"] + item, stdin: "from-the-file")
            #expect(warned.stderr.contains("the keyring also holds tokens"), "\(warned.stderr)")

            #expect(try await place.run(["token"] + item).stdout == "from-the-keyring\n")
            #expect(try await place.run(["show"] + item).stdout.contains("stored in:      keyring"))
            #expect(try await place.run(["delete"] + item).status == 0)
            #expect(try await place.run(["token"] + item).stdout == "from-the-file\n")
            #expect(try await place.run(["delete"] + item).status == 0)
            #expect(try await place.run(["token"] + item).status == 3)
        }
    }

    /// Runs `body`, then deletes `service`'s keyring item, also when `body` throws.
    private func cleaningUpKeyring(_ service: String, _ body: () async throws -> Void) async throws {
        try await cleaningUp({ _ = try? await TestKeyring.keyring.delete(["service": service, "account": "ada"]) }, body)
    }
}
