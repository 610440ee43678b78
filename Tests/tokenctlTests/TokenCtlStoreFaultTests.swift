import Foundation
import KeyringTestSupport
import OAuthTestServer
import TestSupport
import Testing
import TokenAuth

extension TokenCtlNetworkTests {
    /// The store fails in the refresh window — a Secret Service that hangs or dies while the answer is written, a file
    /// store on a disk that is read-only or full — against a server that rotates refresh tokens and revokes the grant
    /// when a retired one comes back. The keyring faults run on a provider of the test's own (a private bus), so the
    /// rest of the run keeps its keyring.
    @Suite("tokenctl: a store that fails in the refresh window loses nothing")
    struct TokenCtlStoreFaultTests {
        /// What `AuthManager` logs at debug level when a write of an answer failed and is tried again.
        static let tryingAgain = "could not store the tokens; trying again"

        @Test("the Secret Service hangs while the answer is stored: tried again until it answers; no reuse, nothing revoked",
              .needsPrivateProvider)
        func hangsWhileStoring() async throws {
            try await NetworkFixture.with { fixture in
                try await PrivateProvider.with(TestProvider.current) { bus in
                    let environment: [String: String?] = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
                    let imported = try await tokenctl(fixture.item("import"), stdin: fixture.expiredBundle(), environment: environment)
                    #expect(imported.status == 0, "\(imported.stderr)")
                    fixture.server.holdTokenAnswers()
                    let running = try startCommand(
                        try tokenctlPath(), fixture.item("token", "--timeout", "2"),
                        environment: environment.merging(["TOKENCTL_LOG_LEVEL": "debug"]) { $1 })
                    try await fixture.server.waitForHeldTokenRequests(1)
                    try await bus.send("stop")
                    fixture.server.releaseTokenAnswers()
                    // Hung past the keyring's timeout, the write is tried again; the provider answers from then on.
                    let triedAgain = try await running.waitForStderr(containing: Self.tryingAgain)
                    try await bus.send("cont")
                    let result = await running.finish()
                    #expect(triedAgain)
                    #expect(result.status == 0, "\(result.stderr)")
                    let token = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

                    let show = try await tokenctl(fixture.item("show", "--json"), environment: environment).json()
                    #expect(show["refresh_started_at"] == nil, "the answer is stored")
                    let again = try await tokenctl(fixture.item("token"), environment: environment)
                    #expect(again.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == token)
                    #expect(fixture.server.stats.refreshGrants == 1)
                    #expect(fixture.server.stats.reuseDetections == 0)
                    // A write that timed out but landed is this refresh's own: nothing of it is revoked.
                    #expect(fixture.server.stats.revocationRequests == 0)
                }
            }
        }

        @Test("the keyring dies while the answer is stored and comes back locked: exit 4 saying where it is kept; stored once unlocked",
              .needsPrivateProvider)
        func diesWhileStoring() async throws {
            try await NetworkFixture.with { fixture in
                try await PrivateProvider.with(.gnomeKeyring) { bus in
                    let environment: [String: String?] = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
                    let imported = try await tokenctl(fixture.item("import"), stdin: fixture.expiredBundle(), environment: environment)
                    #expect(imported.status == 0, "\(imported.stderr)")
                    fixture.server.holdTokenAnswers()
                    let running = try startCommand(
                        try tokenctlPath(), fixture.item("token", "--timeout", "2"), environment: environment)
                    try await fixture.server.waitForHeldTokenRequests(1)
                    try await bus.send("kill")
                    fixture.server.releaseTokenAnswers()
                    let failed = await running.finish()
                    #expect(failed.status == 4, "\(failed.stderr)")
                    #expect(failed.stdout.isEmpty, "no token printed while the only copy is not stored")
                    #expect(failed.stderr.contains("The tokens were refreshed, but the store could not take them"))
                    #expect(failed.stderr.contains("They are kept in "), "\(failed.stderr)")

                    try await bus.send("start-locked")
                    let locked = try await tokenctl(fixture.item("token"), environment: environment)
                    #expect(locked.status == 4, "a locked keyring, not a sign-in: \(locked.stderr)")
                    try await bus.send("unlock")
                    let after = try await tokenctl(fixture.item("token"), environment: environment)
                    #expect(after.status == 0, "\(after.stderr)")
                    #expect(!after.stdout.isEmpty)
                    let show = try await tokenctl(fixture.item("show", "--json"), environment: environment).json()
                    #expect(show["refresh_started_at"] == nil)
                    #expect(show["has_refresh_token"] as? Bool == true)
                    #expect(fixture.server.stats.refreshGrants == 1, "the kept answer was stored, not refreshed again")
                    #expect(fixture.server.stats.reuseDetections == 0)
                    let again = try await tokenctl(fixture.item("token"), environment: environment)
                    #expect(again.stdout == after.stdout)
                }
            }
        }

        @Test("the file store is read-only: the call fails before the grant (exit 4), and afterwards refreshes once")
        func readOnlyFileStore() async throws {
            try await NetworkFixture.with { fixture in
                let state = try TemporaryDirectory()
                let environment: [String: String?] = ["XDG_STATE_HOME": state.url.path]
                let imported = try await tokenctl(
                    fixture.item("import", "--insecure-storage"), stdin: fixture.expiredBundle(), environment: environment)
                #expect(imported.status == 0, "\(imported.stderr)")
                let directory = state.url.appendingPathComponent("tokenkeyring").path
                // Read-only for this one process: a bind mount in a mount namespace of its own.
                let readOnly = try await runCommand(
                    "/usr/bin/unshare",
                    ["-m", "sh", "-c", #"mount --bind -o ro "$1" "$1" && shift && exec "$@""#, "sh", directory,
                     try tokenctlPath()] + fixture.item("token"),
                    environment: environment)
                #expect(readOnly.status == 4, "\(readOnly.stderr)")
                #expect(readOnly.stdout.isEmpty)
                #expect(readOnly.stderr.contains("Read-only file system"), "\(readOnly.stderr)")
                #expect(fixture.server.stats.refreshGrants == 0, "nothing spent that could not be kept")

                let after = try await tokenctl(fixture.item("token"), environment: environment)
                #expect(after.status == 0, "\(after.stderr)")
                #expect(fixture.server.stats.refreshGrants == 1)
                #expect(fixture.server.stats.reuseDetections == 0)
            }
        }

        @Test("the file store's disk is full: before the grant nothing is spent; after it, the answer is kept and stored next")
        func fullFileStore() async throws {
            try await NetworkFixture.with { fixture in
                let state = try TemporaryDirectory()
                let environment: [String: String?] = ["XDG_STATE_HOME": state.url.path]
                let directory = state.url.appendingPathComponent("tokenkeyring").path
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
                let mounted = try await runCommand(
                    "/bin/mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tokenkeyring-test", directory])
                try #require(mounted.status == 0, "\(mounted.stderr)")
                try await cleaningUp({ _ = try? await runCommand("/bin/umount", [directory]) }) {
                    let imported = try await tokenctl(
                        fixture.item("import", "--insecure-storage"), stdin: fixture.expiredBundle(), environment: environment)
                    #expect(imported.status == 0, "\(imported.stderr)")
                    let filler = directory + "/filler"
                    let fill = { _ = try await runCommand("/bin/sh", ["-c", #"cat /dev/zero > "$1"; true"#, "sh", filler]) }

                    try await fill()
                    let before = try await tokenctl(fixture.item("token"), environment: environment)
                    #expect(before.status == 4, "\(before.stderr)")
                    #expect(fixture.server.stats.refreshGrants == 0, "full before the grant: nothing spent")
                    try FileManager.default.removeItem(atPath: filler)

                    fixture.server.holdTokenAnswers()
                    let running = try startCommand(try tokenctlPath(), fixture.item("token"), environment: environment)
                    try await fixture.server.waitForHeldTokenRequests(1)
                    try await fill()
                    fixture.server.releaseTokenAnswers()
                    let failed = await running.finish()
                    #expect(failed.status == 4, "\(failed.stderr)")
                    #expect(failed.stdout.isEmpty)
                    #expect(failed.stderr.contains("They are kept in "), "\(failed.stderr)")
                    try FileManager.default.removeItem(atPath: filler)

                    let after = try await tokenctl(fixture.item("token"), environment: environment)
                    #expect(after.status == 0, "\(after.stderr)")
                    #expect(fixture.server.stats.refreshGrants == 1, "the kept answer was stored, not refreshed again")
                    #expect(fixture.server.stats.reuseDetections == 0)
                }
            }
        }
    }
}
