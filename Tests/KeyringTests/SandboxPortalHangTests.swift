import Foundation
@testable import Keyring
import KeyringTestSupport
import TestSupport
import Testing

/// The directory through which these tests tell the stand-in portal backend (`scripts/lib/secret-portal-backend.py
/// hold DIR`) to hold its answers, as libsecret < 0.21.4 can miss one and wait for ever, but when the test says so.
/// Set only by `scripts/lib/flatpak-tests`, which runs them in the simulated sandbox with that backend.
private let portalControl = ProcessInfo.processInfo.environment["TOKENKEYRING_PORTAL_CONTROL"]

@Suite(
    "Keyring in a sandbox whose Secret portal hangs: an abandoned write holds no lock and never lands", .serialized,
    .enabled(if: portalControl != nil, "runs in the simulated sandbox with a stand-in portal backend: scripts/test runs it there"))
struct SandboxPortalHangTests {
    /// A short timeout: every held portal call is abandoned after it (and its one retry), long before
    /// xdg-desktop-portal gives up on its backend (25 s).
    let keyring = Keyring(configuration: .init(timeout: .seconds(2), prompting: .never))

    /// Tells the stand-in backend what to do with portal requests — `hold` new ones, `pass` new ones (keeping those
    /// held), `release` every one — and returns once it says it does (it reads the word within 20 ms).
    private func portal(_ word: String) async throws {
        try Data("\(word)\n".utf8).write(to: URL(fileURLWithPath: portalControl! + "/control"), options: .atomic)
        try await waitUntil("the stand-in portal backend taking '\(word)'") { try portalStatus().word == word }
    }

    /// What the stand-in backend reported last: its control word; requests received, held now, answered.
    private func portalStatus() throws -> (word: String, received: Int, held: Int, answered: Int) {
        let words = try String(contentsOfFile: portalControl! + "/status", encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).map(String.init)
        let numbers = stride(from: 2, to: words.count, by: 2).compactMap { Int(words[$0]) }
        try #require(words.count == 7 && numbers.count == 3, "status: \(words)")
        return (words[0], numbers[0], numbers[1], numbers[2])
    }

    // Before, a write asked the portal for the key twice: once for its search (after this process's own write the
    // backend was dropped) and once more under the keyring file's lock, where it dropped the backend again. Holding
    // from the second request on: the held answer kept the lock, another instance's import timed out ("did not answer
    // … bundle 0.21.4"), and once the portal answered, the abandoned write landed over the newer one.
    @Test("with the portal hanging after one more answer, a write whose key is in memory asks it for nothing; another instance writes after it")
    func hungPortalKeyInMemory() async throws {
        try await hungWrite(afterAnotherWrite: false, hold: "hold-after-1")
    }

    // Another instance wrote just before, so the process drops its backend and fetches the key again (before the lock):
    // that fetch hangs, and the store and its retry are abandoned.
    @Test("a write whose key fetch hangs is abandoned: another instance writes meanwhile, and the abandoned write never lands")
    func hungKeyFetch() async throws {
        try await hungWrite(afterAnotherWrite: true, hold: "hold")
    }

    /// Stores "before", has the stand-in `hold` as it says, stores "abandoned", lets another instance (`tokenctl
    /// import`) write the item, releases the held answers and waits for every abandoned call to come back: the item
    /// must hold what the other instance wrote. `afterAnotherWrite`: another instance writes just before the hold.
    private func hungWrite(afterAnotherWrite: Bool, hold: String) async throws {
        let tokenctl = try #require(BuiltExecutable.path("tokenctl"), "tokenctl is built beside the tests")
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await portal("pass")
        try await keyring.store("before", label: "Hung portal", attributes: attributes)
        try await cleaningUp({
            try? await portal("release")
            _ = try? await keyring.delete(attributes)
        }) {
            if afterAnotherWrite {
                let other = try await runCommand(
                    tokenctl, ["import", "--service", attributes["service"]!, "--account", "other"], stdin: "other-token\n")
                try #require(other.status == 0, "\(other.stderr)")
            }
            try await portal(hold)
            let received = try portalStatus().received
            let outcome: Result<KeyringItem, any Error>
            do {
                outcome = .success(try await keyring.store("abandoned", label: "Hung portal", attributes: attributes))
            } catch {
                outcome = .failure(error)
            }
            if afterAnotherWrite {
                // The process must fetch the key again, and that call hangs: the store is abandoned, and its retry.
                let error = #expect(throws: KeyringError.self) { try outcome.get() }
                #expect(error?.code == .timedOut, "\(String(describing: error))")
                #expect(try portalStatus().held >= 1, "the store's key fetch was held")
            } else {
                // libsecret's backend holds the key: the write asks the portal for nothing, under the lock or not.
                #expect(throws: Never.self) { try outcome.get() }
                #expect(try portalStatus().received == received, "the store asked the portal")
            }
            try await portal("pass")
            // Another instance of the app writes the same item while the held answers are still unanswered.
            let imported = try await runCommand(
                tokenctl, ["import", "--service", attributes["service"]!, "--account", "ada"], stdin: "imported-token\n")
            #expect(imported.status == 0, "another instance could not write: \(imported.stderr)")
            // The portal answers what it held; the abandoned calls come back from libsecret and must write nothing.
            try await portal("release")
            try await waitUntil("the portal backend answering every request it held") { try portalStatus().held == 0 }
            try await waitUntil("every abandoned call back from libsecret") { AppKeyringFile.ofThisProcess.abandonedCallsRunning == 0 }
            let stored = try #require(try await keyring.lookup(attributes))
            #expect(stored.secret.contains("imported-token"), "the item holds \(stored.secret)")
            if afterAnotherWrite {
                let other = try await keyring.lookup(["service": attributes["service"]!, "account": "other"])
                #expect(other?.secret.contains("other-token") == true)
                _ = try await keyring.delete(["service": attributes["service"]!, "account": "other"])
            }
        }
    }
}
