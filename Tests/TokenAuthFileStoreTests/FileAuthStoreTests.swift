import Foundation
import Testing
import TestSupport
import TokenAuth
@testable import TokenAuthFileStore

/// `FileAuthStore` in a directory of each test's own: what is written where, with which permissions, what is refused,
/// and what happens to a file that cannot be read. No Secret Service is needed.
@Suite("The file store: permissions, names, corrupt files kept")
struct FileAuthStoreTests {
    static let client = OAuthClient(
        tokenEndpoint: URL(string: "https://auth.example.org/token")!, clientID: "desktop-app", clientSecret: "client-secret-1")
    static let credentials = StoredCredentials(
        auth: Auth(
            accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date(timeIntervalSince1970: 1_800_000_000),
            scope: "read write"),
        client: client)
    /// 2026-01-01T00:00:00Z: the wall clock of the stores that keep files aside.
    static let newYear = Date(timeIntervalSince1970: 1_767_225_600)

    /// A temporary directory (removed afterwards) and a store whose directory, `state/tokenkeyring` in it, does not
    /// exist yet.
    func withStore<T>(
        service: String = "api.example.org", account: String = "ada",
        _ body: (FileAuthStore, TemporaryDirectory) async throws -> T
    ) async throws -> T {
        let temporary = try TemporaryDirectory()
        let directory = temporary.url.appendingPathComponent("state/tokenkeyring")
        let store = FileAuthStore(
            service: service, account: account, directory: directory, wallClock: { Self.newYear })
        return try await body(store, temporary)
    }

    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    func contents(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    /// Writes `text` as the item's file, `0600`, as a person or another program might have.
    func plant(_ text: String, at store: FileAuthStore) throws {
        try FileManager.default.createDirectory(
            at: store.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect(FileManager.default.createFile(atPath: store.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
    }

    @Test("a bundle reads back as written, in the keyring item's text, in a 0700 directory and a 0600 file")
    func roundTrip() async throws {
        try await withStore { store, _ in
            #expect(try await store.load() == nil, "nothing is stored yet")
            #expect(!FileManager.default.fileExists(atPath: store.directory.path), "a read creates nothing")

            try await store.save(Self.credentials)
            #expect(try await store.loadCredentials() == Self.credentials)
            #expect(try contents(store.path) == StoredBundleFormat.encode(Self.credentials))
            #expect(try mode(store.directory.path) == 0o700)
            #expect(try mode(store.directory.deletingLastPathComponent().path) == 0o700, "a parent it made")
            #expect(try mode(store.path) == 0o600)
            #expect(store.path == store.directory.path + "/api.example.org+ada.json")
            let names = try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
            #expect(names == ["api.example.org+ada.json"], "no temporary file is left")
        }
    }

    @Test("saving an Auth keeps the recorded client and, with a wall clock, records refreshed_at")
    func saveAuthKeepsClient() async throws {
        try await withStore { store, _ in
            try await store.save(Self.credentials)
            try await store.save(Auth(accessToken: "access-2", refreshToken: "refresh-2"))
            let stored = try #require(try await store.loadCredentials())
            #expect(stored.client == Self.client)
            #expect(stored.auth.accessToken == "access-2")
            #expect(stored.refreshedAt == Self.newYear)
        }
    }

    @Test(
        "any service and account is one file name in the directory, read back by accounts(of:)",
        arguments: [
            ("../..", "../../etc/passwd"), ("a/b", "/"), (".hidden", "."), ("", ""), ("x+y", "%41+"),
            ("ünïcode", "名前"), ("nul\u{0}byte", "new\nline"), ("..", ".."),
        ])
    func namesStayInside(service: String, account: String) async throws {
        try await withStore(service: service, account: account) { store, temporary in
            try await store.signIn(Self.credentials)
            #expect(URL(fileURLWithPath: store.path).deletingLastPathComponent().path == store.directory.path)
            // Besides the item, only the directory of the items' locks.
            let names = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter { $0 != ".locks" }
            #expect(names.count == 1)
            #expect(!names[0].hasPrefix("."), "\(names)")
            #expect(try FileAuthStore.accounts(of: service, directory: store.directory) == [account])
            #expect(try await store.loadCredentials() == Self.credentials)
            let outside = try FileManager.default.contentsOfDirectory(atPath: temporary.url.path)
            #expect(outside == ["state"], "nothing was written outside the store's directory")
        }
    }

    @Test("a service and account too long for a file name: storageFailed, and nothing written")
    func tooLong() async throws {
        try await withStore(account: String(repeating: "/", count: 100)) { store, _ in
            let error = await #expect(throws: TokenAuthError.self) { try await store.save(Self.credentials) }
            #expect(error?.code == .storageFailed)
            #expect(!FileManager.default.fileExists(atPath: store.directory.path))
        }
    }

    @Test("a directory other users can open is refused, not read or repaired, and the fix names chmod 700")
    func openDirectoryRefused() async throws {
        try await withStore { store, _ in
            try await store.save(Self.credentials)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: store.directory.path)

            for attempt in [{ _ = try await store.load() }, { try await store.save(Self.credentials) }] {
                let error = await #expect(throws: TokenAuthError.self) { try await attempt() }
                #expect(error?.code == .storageFailed)
                // checks the sentence's help: the fix names the command, with the path.
                #expect(error?.description.contains("chmod 700 \(store.directory.path)") == true, "\(String(describing: error))")
            }
            let listing = #expect(throws: TokenAuthError.self) {
                try FileAuthStore.accounts(of: store.service, directory: store.directory)
            }
            #expect(listing?.code == .storageFailed)
            #expect(try mode(store.directory.path) == 0o755, "left as it is")
        }
    }

    @Test("a file other users can read is refused, not read or replaced, and the fix names chmod 600")
    func openFileRefused() async throws {
        try await withStore { store, _ in
            try await store.save(Self.credentials)
            let before = try contents(store.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.path)

            let read = await #expect(throws: TokenAuthError.self) { try await store.load() }
            #expect(read?.code == .storageFailed)
            // checks the sentence's help: the fix names the command, with the path.
            #expect(read?.description.contains("chmod 600 \(store.path)") == true)
            #expect(read?.description.contains("access-1") == false, "no secret in the error")
            let written = await #expect(throws: TokenAuthError.self) { try await store.signIn(Self.credentials) }
            #expect(written?.code == .storageFailed)
            #expect(try contents(store.path) == before)
            #expect(try mode(store.path) == 0o644)
            let states = try FileAuthStore.accountStates(of: store.service, directory: store.directory, at: Self.newYear)
            #expect(states.map(\.account) == ["ada"])
            guard case .unreadable(let reason) = states.first?.state else {
                Issue.record("expected unreadable, got \(states)")
                return
            }
            #expect(reason.contains("644"))
        }
    }

    @Test("a symbolic link in the item's place is refused, whatever it points at")
    func symbolicLinkRefused() async throws {
        try await withStore { store, temporary in
            let elsewhere = temporary.url.appendingPathComponent("elsewhere.json").path
            #expect(FileManager.default.createFile(
                atPath: elsewhere, contents: Data(try StoredBundleFormat.encode(Self.credentials).utf8),
                attributes: [.posixPermissions: 0o600]))
            try FileManager.default.createDirectory(
                at: store.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.createSymbolicLink(atPath: store.path, withDestinationPath: elsewhere)

            let error = await #expect(throws: TokenAuthError.self) { try await store.load() }
            #expect(error?.code == .storageFailed)
        }
    }

    @Test("a corrupt file is never overwritten: reads and refreshes leave it, a sign-in keeps it aside, dated")
    func corruptFileKeptAside() async throws {
        try await withStore { store, _ in
            let garbage = "{\"version\":1,\"access_token\":\"half-writ"
            try plant(garbage, at: store)

            let read = await #expect(throws: TokenAuthError.self) { try await store.load() }
            #expect(read?.code == .corrupt)
            let refresh = await #expect(throws: TokenAuthError.self) {
                try await store.update(Auth(accessToken: "new"), replacing: Auth(accessToken: "old"))
            }
            #expect(refresh?.code == .corrupt)
            #expect(try contents(store.path) == garbage, "left untouched by the read and the refresh")

            let replaced = try await store.signIn(Self.credentials)
            let aside = store.path + ".corrupt-20260101T000000Z"
            #expect(replaced?.code == .corrupt)
            #expect(try contents(aside) == garbage)
            #expect(try mode(aside) == 0o600)
            #expect(try await store.loadCredentials() == Self.credentials)

            // A second one on the same date gets a name of its own.
            try plant("not a token\nat all", at: store)
            try await store.save(Self.credentials)
            #expect(try contents(aside + "-2") == "not a token\nat all")
            #expect(try contents(aside) == garbage)
            #expect(try FileAuthStore.accounts(of: store.service, directory: store.directory) == ["ada"], "kept files are not items")
        }
    }

    @Test("a file of a newer format is unsupportedVersion, and kept aside the same way")
    func newerVersionKeptAside() async throws {
        try await withStore { store, _ in
            let newer = #"{"version":3,"access_token":"from-the-future"}"#
            try plant(newer, at: store)
            let error = await #expect(throws: TokenAuthError.self) { try await store.load() }
            #expect(error?.code == .unsupportedVersion)
            #expect(try await store.signIn(Self.credentials)?.code == .unsupportedVersion)
            #expect(try contents(store.path + ".corrupt-20260101T000000Z") == newer)
        }
    }

    @Test("update is a compare-and-swap: missing, superseded (nothing written), or written")
    func compareAndSwap() async throws {
        try await withStore { store, _ in
            let old = Self.credentials.auth
            let missing = await #expect(throws: TokenAuthError.self) {
                try await store.update(Auth(accessToken: "new"), replacing: old)
            }
            #expect(missing?.code == .missing)
            #expect(!FileManager.default.fileExists(atPath: store.path), "no file was created")

            try await store.save(StoredCredentials(auth: Auth(accessToken: "signed-in-elsewhere"), client: Self.client))
            let superseded = await #expect(throws: TokenAuthError.self) {
                try await store.update(Auth(accessToken: "new"), replacing: old)
            }
            #expect(superseded?.code == .superseded)
            #expect(try await store.load()?.accessToken == "signed-in-elsewhere")

            try await store.update(Auth(accessToken: "refreshed"), replacing: Auth(accessToken: "signed-in-elsewhere"))
            let stored = try #require(try await store.loadCredentials())
            #expect(stored.auth.accessToken == "refreshed")
            #expect(stored.client == Self.client, "the recorded client is kept")
        }
    }

    @Test("delete removes the file and says whether there was one; erase of nothing succeeds; kept files stay")
    func deleteAndErase() async throws {
        try await withStore { store, _ in
            #expect(try await store.delete() == false)
            try await store.erase()
            try plant("{garbage", at: store)
            try await store.signIn(Self.credentials)
            #expect(try await store.delete() == true)
            #expect(try await store.load() == nil)
            let names = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter { $0 != ".locks" }
            #expect(names == ["api.example.org+ada.json.corrupt-20260101T000000Z"])
        }
    }

    @Test("freshTokenBlocking: the token when fresh as stored, nil when a refresh, a check or a readable file is missing")
    func freshToken() async throws {
        try await withStore { store, _ in
            #expect(try store.freshTokenBlocking(at: Self.newYear) == nil)
            let expiry = Self.newYear.addingTimeInterval(3600)
            try await store.save(StoredCredentials(auth: Auth(accessToken: "fresh", expiresAt: expiry)))
            #expect(try store.freshTokenBlocking(at: Self.newYear) == "fresh")
            #expect(try store.freshTokenBlocking(at: expiry.addingTimeInterval(-30)) == nil, "inside the leeway")
            try plant("{", at: store)
            #expect(try store.freshTokenBlocking(at: Self.newYear) == nil, "an unreadable file is the manager's to report")
        }
    }

    @Test("a directory on the way that others can write to is refused, naming it and `chmod go-w`; a sticky one is not")
    func wayWritableByOthersRefused() async throws {
        try await withStore { store, temporary in
            let state = temporary.url.appendingPathComponent("state")
            try FileManager.default.createDirectory(at: state, withIntermediateDirectories: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: state.path)

            let attempts: [(String, () async throws -> Void)] = [
                ("save", { try await store.save(Self.credentials) }), ("load", { _ = try await store.load() }),
                ("accounts", { _ = try FileAuthStore.accounts(of: store.service, directory: store.directory) }),
            ]
            for (name, attempt) in attempts {
                let error = await #expect(throws: TokenAuthError.self, "\(name)") { try await attempt() }
                #expect(error?.code == .storageFailed, "\(name)")
                // checks the sentence's help: which directory, and the command that fixes it (two checks).
                #expect(error?.reason.contains("could not use \(state.path): it is on the way to") == true, "\(name): \(String(describing: error))")
                #expect(error?.fix.contains("chmod go-w \(state.path)") == true, "\(name)")
            }
            #expect(!FileManager.default.fileExists(atPath: store.directory.path), "nothing was made below it")

            // Writable by all but sticky, as /tmp: no one else can move what is in it.
            try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: state.path)
            try await store.save(Self.credentials)
            #expect(try await store.loadCredentials() == Self.credentials)
        }
    }

    @Test("a symbolic link on the way is followed, and the directories it leads to are checked; the store's directory itself may not be a link")
    func linksOnTheWay() async throws {
        let temporary = try TemporaryDirectory()
        let real = temporary.url.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: false)
        let link = temporary.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real")
        let throughLink = FileAuthStore(
            service: "api.example.org", account: "ada", directory: link.appendingPathComponent("tokenkeyring"))
        try await throughLink.save(Self.credentials)
        #expect(try await throughLink.loadCredentials() == Self.credentials)
        #expect(FileManager.default.fileExists(atPath: real.path + "/tokenkeyring/api.example.org+ada.json"))

        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: real.path)
        let open = await #expect(throws: TokenAuthError.self) { try await throughLink.load() }
        // checks the sentence's help: the directory the link leads to, not the link.
        #expect(open?.reason.contains("could not use \(real.path): it is on the way") == true, "\(String(describing: open))")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: real.path)

        let linkedStore = temporary.url.appendingPathComponent("store-link")
        try FileManager.default.createSymbolicLink(atPath: linkedStore.path, withDestinationPath: "real/tokenkeyring")
        let store = FileAuthStore(service: "api.example.org", account: "ada", directory: linkedStore)
        for attempt in [{ _ = try await store.load() }, { try await store.save(Self.credentials) }] {
            let error = await #expect(throws: TokenAuthError.self) { try await attempt() }
            #expect(error?.code == .storageFailed)
        }
    }

    @Test("the item's file is read only when it is a regular file: a directory in its place is refused")
    func notRegularRefused() async throws {
        try await withStore { store, _ in
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: store.path), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let error = await #expect(throws: TokenAuthError.self) { try await store.load() }
            #expect(error?.code == .storageFailed)
        }
    }

    @Test("the default directory: $XDG_STATE_HOME when absolute, else $HOME/.local/state, whatever the password database says")
    func defaultDirectoryFollowsHome() {
        func directory(_ environment: [String: String]) -> String {
            FileAuthStore.defaultDirectory(in: UserDirectories { environment[$0] }).path
        }
        #expect(directory(["HOME": "/srv/ada", "XDG_STATE_HOME": "/var/state"]) == "/var/state/tokenkeyring")
        #expect(directory(["HOME": "/srv/ada"]) == "/srv/ada/.local/state/tokenkeyring")
        #expect(directory(["HOME": "/srv/ada", "XDG_STATE_HOME": "relative/state"]) == "/srv/ada/.local/state/tokenkeyring")
        let passwordHome = FileManager.default.homeDirectoryForCurrentUser.path
        #expect(directory(["HOME": "not/absolute"]) == passwordHome + "/.local/state/tokenkeyring")
        #expect(directory([:]) == passwordHome + "/.local/state/tokenkeyring")
    }
}
