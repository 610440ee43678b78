import Foundation
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthFileStore

/// `FileAuthStore` shared with other processes (`file-store-child`): a writer killed in the middle of its writes,
/// and processes that refresh one file item at once against a real OAuth server. Proven by what every read finds and
/// what the server counts, never by timing.
/// One test at a time: the writer of the first keeps a core busy, and the second's children must all be waiting for
/// the lock before the test releases the server's answer.
@Suite("The file store across processes: atomic under kill, one refresh at a time", .serialized)
struct FileAuthStoreProcessTests {
    /// What a process logs at debug level while another holds the item's lock.
    static let waitingForLock = "waiting for the refresh lock"

    @Test("a writer killed with SIGKILL mid-write leaves the old file or the new one, never a part, nor a 0644 one")
    func atomicUnderKill() async throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.url.appendingPathComponent("tokenkeyring")
        let store = FileAuthStore(service: "kill.example", account: "ada", directory: directory)
        let child = try childPath()
        var reads = 0, abandoned = 0, rounds = 0
        // Until a kill has landed between a temporary file's creation and its rename at least once (the next
        // round's writer removes what it left), and for at least 5 rounds.
        while rounds < 5 || (abandoned == 0 && rounds < 40) {
            rounds += 1
            let prefix = "round\(rounds)"
            let writer = try startCommand(child, ["write", directory.path, store.service, store.account, prefix])
            var written: Set<String> = []
            // The writer runs at nice 19: while the whole suite starts on two cores, it may get almost no CPU for
            // half a minute (a full run saw trivial tests take 25 s then), hence the long bound.
            try await waitUntil(
                "\(prefix)'s writer to replace the file 3 times; it printed: \(writer.stderrSoFar)", within: .seconds(150)
            ) {
                // Every state a reader meets is a whole bundle: a part would throw `corrupt` and end the test.
                if let auth = try await store.load(), auth.accessToken.hasPrefix(prefix + "-") {
                    written.insert(auth.accessToken)
                }
                reads += 1
                try expectPrivateTemporaries(in: directory)
                return written.count >= 3
            }
            kill(writer.pid, SIGKILL)
            let result = await writer.finish()
            #expect(result.status == -1, "the writer was killed, not ended: \(result.stderr)")

            let last = try #require(try await store.load(), "a killed writer never leaves no file")
            #expect(last.accessToken.hasPrefix(prefix + "-"), "\(last.accessToken)")
            #expect(last.scope?.utf8.count == 60_000, "the whole bundle")
            try expectPrivateTemporaries(in: directory)
            abandoned += try temporaries(in: directory).count
        }
        #expect(abandoned > 0, "in \(rounds) rounds, no kill landed mid-write")
        #expect(reads > rounds * 3)
        // The next write removes the temporary files of the killed writers.
        try await store.save(StoredCredentials(auth: Auth(accessToken: "after")))
        #expect(try temporaries(in: directory).isEmpty)
    }

    @Test("processes refreshing one file item at once: one grant, no reuse, one token for all, stored with its time")
    func processesShareOneRefresh() async throws {
        try await withServer { server in
            let temporary = try TemporaryDirectory()
            let directory = temporary.url.appendingPathComponent("tokenkeyring")
            let store = FileAuthStore(service: "rotation.example", account: "alice", directory: directory)
            let issued = server.issueTokens(clientID: "test-client", subject: "alice")
            try await store.signIn(StoredCredentials(
                auth: Auth(
                    accessToken: issued.accessToken, refreshToken: issued.refreshToken,
                    expiresAt: Date(timeIntervalSinceNow: -10)),
                client: OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: "test-client")))

            server.holdTokenAnswers()
            let count = 4
            // A lock directory of the test's own, shared by the children, as $XDG_RUNTIME_DIR is by a user's processes.
            let environment = ["XDG_RUNTIME_DIR": temporary.url.appendingPathComponent("run").path]
            let children = try (1...count).map { _ in
                try startCommand(
                    try childPath(), ["token", directory.path, store.service, store.account], environment: environment)
            }
            try await server.waitForHeldTokenRequests(1)
            try await waitUntil("\(count - 1) processes to wait for the lock of the one whose refresh is held") {
                children.filter { $0.stderrSoFar.contains(Self.waitingForLock) }.count == count - 1
            }
            server.releaseTokenAnswers()

            var printed: Set<String> = []
            for child in children {
                let result = await child.finish()
                #expect(result.status == 0, "\(result.stderr)")
                printed.insert(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            let stored = try #require(try await store.loadCredentials())
            #expect(printed == [stored.auth.accessToken], "every process hands out the one refreshed token")
            #expect(stored.auth.refreshToken != issued.refreshToken)
            #expect(stored.refreshedAt != nil)
            #expect(server.stats.tokenRequests == 1)
            #expect(server.stats.refreshGrants == 1)
            #expect(server.stats.reuseDetections == 0)
        }
    }

    @Test("a temporary file a live writer holds locked survives another process's write, whatever PID its name says; an unlocked one is removed")
    func lockedTemporarySurvives() async throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.url.appendingPathComponent("tokenkeyring")
        let store = FileAuthStore(service: "tmp.example", account: "ada", directory: directory)
        try await store.save(StoredCredentials(auth: Auth(accessToken: "first")))
        // Named as earlier versions named a writer's file, after its PID: for the held one a PID that runs nowhere
        // in this namespace (as a writer's in another PID namespace: `kill` says ESRCH), for the abandoned one
        // init's, which always runs.
        let ended = try await runCommand("/bin/sh", ["-c", "echo $$"])
        let otherNamespace = try #require(Int32(ended.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let held = directory.path + "/.tmp.example+ada.json.tmp-\(otherNamespace)-a1b2c3"
        let abandoned = directory.path + "/.tmp.example+ada.json.tmp-1-d4e5f6"
        #expect(FileManager.default.createFile(
            atPath: abandoned, contents: Data("partial".utf8), attributes: [.posixPermissions: 0o600]))
        let holder = try startCommand(try childPath(), ["hold", held])
        let holding = try await holder.waitForStderr(containing: "holding")
        #expect(holding, "the holder never held \(held): \(holder.stderrSoFar)")

        try await store.save(StoredCredentials(auth: Auth(accessToken: "second")))
        #expect(FileManager.default.fileExists(atPath: held), "the live writer's file is left to it")
        #expect(!FileManager.default.fileExists(atPath: abandoned), "the file no one holds is removed")
        #expect(try await store.load()?.accessToken == "second")

        kill(holder.pid, SIGKILL)
        _ = await holder.finish()
        try await store.save(StoredCredentials(auth: Auth(accessToken: "third")))
        #expect(try temporaries(in: directory).isEmpty, "once its writer is gone, the next write removes it")
        #expect(try await store.load()?.accessToken == "third")
    }

    @Test("a FIFO in the item's place: a read ends at once with storageFailed, waiting for no writer")
    func fifoRefused() async throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.url.appendingPathComponent("tokenkeyring")
        let store = FileAuthStore(service: "fifo.example", account: "ada", directory: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        #expect(mkfifo(store.path, 0o600) == 0)

        // In a process of its own, so that a read that waits is killed at the timeout (status -1), not the test.
        let result = try await runCommand(
            try childPath(), ["load", directory.path, store.service, store.account], timeout: .seconds(30))
        #expect(result.status == 1, "ended with the store's error: \(result.stderr)")
        #expect(result.stderr.hasPrefix("storageFailed: "), "the store's code: \(result.stderr)")
        #expect(result.stderr.contains("it is not a regular file"), "refused as what it is: \(result.stderr)")
    }

    /// The temporary files in `directory`.
    private func temporaries(in directory: URL) throws -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(".") && $0.contains(".tmp-") }
    }

    /// Every temporary file in `directory` is `0600` (one renamed away meanwhile is not looked at).
    private func expectPrivateTemporaries(in directory: URL) throws {
        for name in try temporaries(in: directory) {
            let path = directory.appendingPathComponent(name).path
            guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int else {
                continue
            }
            #expect(mode == 0o600, "\(name)")
        }
    }

    /// The `file-store-child` executable that `swift build --build-tests` put beside the test bundle.
    private func childPath() throws -> String {
        try #require(
            BuiltExecutable.path("file-store-child"),
            "no file-store-child among \(BuiltExecutable.candidates("file-store-child").map(\.path)); run `swift build --build-tests`")
    }
}
