import ChildProcesses
import Foundation
import KeyringTestSupport
import TestSupport
import Testing

/// A keyring that keeps the session waiting: the states say so before the keyring's answer (or its timeout) comes,
/// instead of saying nothing for the keyring's whole timeout.
///
/// The app of these tests (`Tests/SessionApp`, printing its states) runs on a private bus of its own, whose Secret
/// Service owns its name and never answers (`HungSecretService`): the shared provider of the other tests is left
/// alone, and so are their states.
@Suite("AuthSession: the states say that the keyring keeps them waiting", .timeLimit(.minutes(1)))
struct AuthSessionKeyringWaitTests {
    @Test("a Secret Service that never answers: `waiting` first, then `timedOut` at the keyring's timeout")
    func waitingThenTimedOut() async throws {
        try await HungSecretService.with { bus in
            let app = try startCommand(
                try AuthSessionAppDeathTests.appPath(),
                ["http://127.0.0.1:9/", "http://127.0.0.1:9/resource", TestKeyring.uniqueService(), "ada"],
                environment: [
                    "DBUS_SESSION_BUS_ADDRESS": bus.address, "SESSION_APP_STATES": "1",
                    // Long beside the session's patience of 1 s: `waiting` comes first however busy the machine is.
                    "SESSION_APP_KEYRING_TIMEOUT": "4",
                ])
            let ended = try await app.waitForStdout(containing: "state unavailable timedOut")
            kill(app.pid, SIGKILL)
            let output = await app.finish()
            #expect(ended, "no timedOut state: \(output.stdout) \(output.stderr)")
            let states = output.stdout.split(separator: "\n").filter { $0.hasPrefix("state ") }
            #expect(states == ["state unavailable waiting", "state unavailable timedOut"], "\(output.stdout)")
        }
    }
}
