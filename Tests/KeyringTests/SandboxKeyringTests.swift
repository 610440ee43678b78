import Foundation
@testable import Keyring
import KeyringTestSupport
import TestSupport
import Testing

/// Whether these tests run: only inside the simulated Flatpak sandbox of `scripts/lib/flatpak-tests`, which sets
/// `TOKENKEYRING_REQUIRE_SANDBOX=1` — and there they fail, rather than skip, when the process is not sandboxed.
private let inSandbox = ProcessInfo.processInfo.environment["TOKENKEYRING_REQUIRE_SANDBOX"] == "1"

@Suite(
    "Keyring inside a Flatpak sandbox: the app's keyring file through the Secret portal", .serialized,
    .enabled(if: inSandbox, "runs inside the simulated Flatpak sandbox: scripts/test runs it there"))
struct SandboxKeyringTests {
    let keyring = Keyring(configuration: .init(timeout: .seconds(10), prompting: .never))

    @Test("the process is sandboxed, and Keyring uses the app's keyring file, not org.freedesktop.secrets")
    func sandboxed() async throws {
        #expect(DesktopPortal.isSandboxed)
        #expect(Keyring.usesSandboxKeyring)
        #expect((keyring.backend as? SandboxBackend)?.file === AppKeyringFile.ofThisProcess, "the process's one file")
        #expect(Keyring.sandboxKeyringFile.hasSuffix("/.var/app/\(ProcessInfo.processInfo.environment["FLATPAK_ID"] ?? "?")/data/keyrings/default.keyring"))
        let diagnosis = await keyring.diagnose()
        #expect(diagnosis.isUsable, "\(diagnosis)")
        #expect(diagnosis.checks.first?.detail.contains("Flatpak sandbox") == true, "\(diagnosis)")
    }

    @Test("store, look up, replace in place, list and delete: exactly the attributes given")
    func roundTrip() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        let stored = try await keyring.store("s3cret", label: "Round trip", attributes: attributes)
        #expect(FileManager.default.fileExists(atPath: Keyring.sandboxKeyringFile))
        let found = try #require(try await keyring.lookup(attributes))
        #expect(found.secret == "s3cret")
        #expect(found.attributes == attributes)
        #expect(found.path == stored.path)

        try await keyring.store("second", label: "Round trip", attributes: attributes)
        #expect(try await keyring.lookup(attributes)?.secret == "second")
        #expect(try await keyring.items(matching: attributes).count == 1, "replaced in place, not added")

        // Another tool's item with further attributes is never read, replaced or deleted for ours.
        let wider = attributes.merging(["tool": "other"]) { $1 }
        try await keyring.store("theirs", label: "Other tool", attributes: wider)
        #expect(try await keyring.lookup(attributes)?.secret == "second")
        #expect(try await keyring.items(matching: attributes).count == 2)
        let refused = await #expect(throws: KeyringError.self) { try await keyring.delete(attributes) }
        #expect(refused == .appKeyringDeleteWouldTakeOthers(1))
        #expect(try await keyring.lookup(wider)?.secret == "theirs", "nothing deleted because of the refusal")
        #expect(try await keyring.delete(wider) == 1)
        #expect(try await keyring.delete(attributes) == 1)
        #expect(try await keyring.lookup(attributes) == nil)
        #expect(try await keyring.delete(attributes) == 0)

        // xdg:schema, which the file backend does not keep, is ignored like everywhere else.
        let withSchema = attributes.merging([KeyringItem.schemaAttribute: "org.example.Schema"]) { $1 }
        try await keyring.store("schema", label: "Round trip", attributes: withSchema)
        #expect(try await keyring.lookup(attributes)?.secret == "schema")
        #expect(try await keyring.delete(withSchema) == 1)
    }

    @Test("a write by another process is seen at once, even within the same second (libsecret reads by whole seconds)")
    func otherProcessWrites() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await keyring.store("mine", label: "Shared", attributes: attributes)
        for round in 1...5 {
            // secret-tool here uses the same libsecret, file and portal key: another process of the same app.
            let written = try await runCommand(
                "/bin/sh", ["-c", "printf %s \"$0\" | secret-tool store --label=Shared service \"$1\" account ada",
                            "theirs-\(round)", attributes["service"]!])
            try #require(written.status == 0, "\(written.stderr)")
            #expect(try await keyring.lookup(attributes)?.secret == "theirs-\(round)")
            try await keyring.store("mine-\(round)", label: "Shared", attributes: attributes)
            let read = try await runCommand("/usr/bin/secret-tool", ["lookup", "service", attributes["service"]!, "account", "ada"])
            #expect(read.stdout == "mine-\(round)", "round \(round)")
        }
        #expect(try await keyring.delete(attributes) == 1)
    }

    // Without the keyring file's lock about half the batches lost a write.
    @Test("calls of one process at once, beside another process's writes: every item stored is there", arguments: 1...3)
    func concurrentCalls(batch: Int) async throws {
        let service = TestKeyring.uniqueService() + "-\(batch)"
        // Another process of this package (tokenctl, which takes the keyring file's lock as Keyring does) writes
        // items of the same service meanwhile: none of its writes and none of ours may be lost. (Plain libsecret
        // clients such as secret-tool do not take the lock; two of their writes at the same instant can lose one.)
        let tokenctl = try #require(BuiltExecutable.path("tokenctl"), "tokenctl is built beside the tests")
        let writer = Task {
            for round in 1...4 {
                let result = try await runCommand(
                    tokenctl, ["import", "--service", service, "--account", "other-\(round)"], stdin: "token-\(round)\n")
                #expect(result.status == 0, "\(result.stderr)")
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 1...8 {
                group.addTask {
                    try await keyring.store("secret-\(index)", label: "Concurrent", attributes: ["service": service, "account": "a\(index)"])
                }
            }
            try await group.waitForAll()
        }
        try await writer.value
        for index in 1...8 {
            #expect(try await keyring.lookup(["service": service, "account": "a\(index)"])?.secret == "secret-\(index)")
        }
        for round in 1...4 {
            let stored = try await keyring.lookup(["service": service, "account": "other-\(round)"])
            #expect(stored?.secret.contains("token-\(round)") == true, "round \(round)")
        }
        #expect(try await keyring.items(matching: ["service": service]).count == 12)
        for index in 1...8 { _ = try await keyring.delete(["service": service, "account": "a\(index)"]) }
        for round in 1...4 { _ = try await keyring.delete(["service": service, "account": "other-\(round)"]) }
    }

    // Deterministic: this test holds the keyring file's lock itself, as another writer of the app does while it
    // writes, until the delete waits for it. Before, the delete checked outside the lock and deleted the new item too.
    @Test("a delete checks for items with further attributes under the keyring file's lock: one added before it gets the lock stays")
    func deleteChecksUnderTheLock() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        let wider = attributes.merging(["tool": "other"]) { $1 }
        try await keyring.store("mine", label: "Delete", attributes: attributes)
        try await cleaningUp({
            _ = try? await keyring.delete(wider)
            _ = try? await keyring.delete(attributes)
        }) {
            let lock = open(Keyring.sandboxKeyringFile + ".lock", O_RDWR | O_CLOEXEC)
            try #require(lock >= 0)
            var lockOpen = true
            defer { if lockOpen { close(lock) } }
            try await waitUntil("the keyring file's lock free") { flock(lock, LOCK_EX | LOCK_NB) == 0 }
            let waiting = AppKeyringFile.ofThisProcess.lockWaiters
            let deletion = Task { try await keyring.delete(attributes) }
            try await waitUntil("the delete waiting for the keyring file's lock") { AppKeyringFile.ofThisProcess.lockWaiters > waiting }
            // The other writer adds an item with further attributes (secret-tool: another process of the app).
            let added = try await runCommand(
                "/bin/sh", ["-c", "printf theirs | secret-tool store --label=Other service \"$0\" account ada tool other",
                            attributes["service"]!])
            try #require(added.status == 0, "\(added.stderr)")
            close(lock)
            lockOpen = false
            let refused = await #expect(throws: KeyringError.self) { try await deletion.value }
            #expect(refused == .appKeyringDeleteWouldTakeOthers(1), "\(String(describing: refused))")
            #expect(try await keyring.lookup(wider)?.secret == "theirs", "the item added while the delete waited is kept")
            #expect(try await keyring.lookup(attributes)?.secret == "mine", "nothing was deleted")
        }
    }

    @Test("a damaged keyring file is a misconfiguration naming it; libsecret never reads it (it would abort)")
    func damagedFile() async throws {
        let file = Keyring.sandboxKeyringFile
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await keyring.store("kept", label: "Damaged", attributes: attributes)
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        defer { try? original.write(to: URL(fileURLWithPath: file)) }
        // libsecret's header and version, then a body cut short: libsecret 0.21.7 asserts on it.
        try original.prefix(40).write(to: URL(fileURLWithPath: file))
        let error = await #expect(throws: KeyringError.self) { try await keyring.lookup(attributes) }
        #expect(error?.code == .misconfigured)
        // checks the sentence's help: the reason names the file.
        #expect(error?.reason.contains(file) == true)
        // An empty file too: libsecret refuses its header.
        try Data().write(to: URL(fileURLWithPath: file))
        let empty = await #expect(throws: KeyringError.self) { try await keyring.lookup(attributes) }
        #expect(empty?.code == .misconfigured)
        try original.write(to: URL(fileURLWithPath: file))
        #expect(try await keyring.lookup(attributes)?.secret == "kept")
        #expect(try await keyring.delete(attributes) == 1)
    }

    @Test("an unreadable keyring file is a misconfiguration naming it, and nothing is written")
    func unreadableFile() async throws {
        let file = Keyring.sandboxKeyringFile
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await keyring.store("kept", label: "Unreadable", attributes: attributes)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: file)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file) }
        guard !FileManager.default.isReadableFile(atPath: file) else {
            Issue.record("the file stays readable to this process (running with CAP_DAC_OVERRIDE?): the case cannot be made")
            return
        }
        let read = await #expect(throws: KeyringError.self) { try await keyring.lookup(attributes) }
        #expect(read?.code == .misconfigured)
        // checks the sentence's help: the reason names the file.
        #expect(read?.reason.contains(file) == true)
        let write = await #expect(throws: KeyringError.self) {
            try await keyring.store("lost", label: "Unreadable", attributes: attributes)
        }
        #expect(write?.code == .misconfigured)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        #expect(try await keyring.lookup(attributes)?.secret == "kept")
        #expect(try await keyring.delete(attributes) == 1)
    }

    // Before, the call's own timer (started before the lock was waited for) always ended it first, with the advice for
    // a portal that does not answer: "check xdg-desktop-portal … bundle libsecret 0.21.4".
    @Test("another instance holding the keyring file's lock past the timeout: timedOut naming the lock file, nothing written")
    func lockHeldByAnotherInstance() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await keyring.store("before", label: "Lock held", attributes: attributes)
        let lockPath = Keyring.sandboxKeyringFile + ".lock"
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(lock >= 0)
        defer { close(lock) }
        // The other instance: an open file description of its own, as another process has.
        try await waitUntil("the keyring file's lock taken") { flock(lock, LOCK_EX | LOCK_NB) == 0 }
        let quick = Keyring(configuration: .init(timeout: .seconds(1), prompting: .never))
        let error = await #expect(throws: KeyringError.self) {
            try await quick.store("never", label: "Lock held", attributes: attributes)
        }
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(error?.reason.contains(lockPath) == true, "\(String(describing: error))")
        #expect(error?.fix.contains("0.21.4") == false, "no portal advice for a lock: \(String(describing: error))")
        flock(lock, LOCK_UN)
        try await waitUntil("every abandoned call back") { AppKeyringFile.ofThisProcess.abandonedCallsRunning == 0 }
        #expect(try await keyring.lookup(attributes)?.secret == "before", "nothing was written")
        #expect(try await keyring.delete(attributes) == 1)
    }

    // GIO renames its new file over the old one even when writing it failed (a full disk, a file size limit): before,
    // the keyring file was left cut short, and every item in it was refused as damaged from then on.
    @Test("a write that fails part-way (as on a full disk) leaves the keyring file and its items as they were")
    func failedWrite() async throws {
        let file = Keyring.sandboxKeyringFile
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await keyring.store("kept", label: "Failed write", attributes: attributes)
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        let large = ["service": attributes["service"]!, "account": "large"]
        let failure = try await withFileSizeLimit(original.count + 512) {
            await #expect(throws: KeyringError.self) {
                try await keyring.store(String(repeating: "x", count: 4096), label: "Failed write", attributes: large)
            }
        }
        #expect(failure?.code == .misconfigured, "\(String(describing: failure))")
        #expect(failure?.reason.contains(file) == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original, "the keyring file was replaced")
        #expect(try await keyring.lookup(attributes)?.secret == "kept")
        #expect(try await keyring.lookup(large) == nil)
        #expect(try await keyring.delete(attributes) == 1)
    }

    // Where there is no keyring file yet, GIO writes the new one in place: a first write that failed left its
    // beginning, which every later call refused as damaged until the user removed it by hand.
    @Test("a first write that fails part-way leaves no keyring file behind, and the next write makes one")
    func failedFirstWrite() async throws {
        let file = Keyring.sandboxKeyringFile
        let aside = file + ".aside-\(getpid())"
        let hadFile = FileManager.default.fileExists(atPath: file)
        if hadFile { try FileManager.default.moveItem(atPath: file, toPath: aside) }
        try await cleaningUp({
            try? FileManager.default.removeItem(atPath: file)
            if hadFile { try? FileManager.default.moveItem(atPath: aside, toPath: file) }
        }) {
            let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
            let failure = try await withFileSizeLimit(64) {
                await #expect(throws: KeyringError.self) {
                    try await keyring.store(String(repeating: "x", count: 4096), label: "Failed write", attributes: attributes)
                }
            }
            #expect(failure?.code == .misconfigured, "\(String(describing: failure))")
            #expect(!FileManager.default.fileExists(atPath: file), "the failed write's beginning was left")
            try await keyring.store("second", label: "Failed write", attributes: attributes)
            #expect(try await keyring.lookup(attributes)?.secret == "second")
        }
    }

    /// Runs `body` while this process cannot write files past `bytes` (`RLIMIT_FSIZE`; such a write fails with EFBIG,
    /// SIGXFSZ ignored meanwhile): a full disk for the keyring file's writes, without a file system of its own.
    private func withFileSizeLimit<T>(_ bytes: Int, _ body: () async throws -> T) async throws -> T {
        var previous = rlimit()
        try #require(getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &previous) == 0)
        var limited = previous
        limited.rlim_cur = rlim_t(bytes)
        let handler = signal(SIGXFSZ, SIG_IGN)
        defer { signal(SIGXFSZ, handler) }
        try #require(setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limited) == 0)
        defer { setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &previous) }
        return try await body()
    }

    @Test("the keyring cannot be locked here, and announces no changes: each says so")
    func unsupported() async throws {
        let lock = await #expect(throws: KeyringError.self) { try await keyring.lock(.default) }
        #expect(lock == .appKeyringCannotLock)
        let changes = await #expect(throws: KeyringError.self) { try await keyring.changes() }
        #expect(changes == .appKeyringAnnouncesNoChanges)
    }

    @Test("the portal's OpenURI takes a URL from the sandbox")
    func openURI() async throws {
        try await DesktopPortal.openURI(URL(string: "https://example.com/opened-by-the-sandbox-test")!)
    }
}

