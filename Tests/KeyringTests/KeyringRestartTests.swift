import ChildProcesses
import Foundation
import KeyringTestSupport
import TestSupport
import Testing

/// A process that outlives its keyring: gnome-keyring killed (a crash) and started again by D-Bus, without its
/// password. A process that does not run GLib's main loop keeps libsecret's service object as it was: its session,
/// which the new daemon does not know ("The session does not exist", for good), and the old daemon's unique bus name,
/// where libsecret sent the unlock prompt ("Name \":1.5\" does not exist": no Secret Service, for good).
@Suite("A process that outlives its keyring", .needsPrivateProvider, .timeLimit(.minutes(3)))
struct KeyringRestartTests {
    @Test("gnome-keyring killed and started again, locked: the process is asked to unlock, and reads its item after")
    func startedAgainLocked() async throws {
        let child = try #require(BuiltExecutable.path("keyring-child"), "keyring-child is not built")
        try await PrivateProvider.with(.gnomeKeyring) { keyring in
            try await PrivateBusProcess.with(
                URL(fileURLWithPath: child), [], environment: ["DBUS_SESSION_BUS_ADDRESS": keyring.address],
                startLimit: .seconds(30)
            ) { app in
                #expect(try await app.ask("store restart.example ada kept") == "ok")
                #expect(try await app.ask("lookup restart.example ada") == "secret kept", "a session with this keyring")

                try await keyring.send("kill")
                try await keyring.send("start-locked")
                // The unlock prompt cannot be shown here (no display), as when the user dismisses it.
                #expect(try await app.ask("lookup-prompting restart.example ada", within: .seconds(60)) == "error locked")

                try await keyring.send("unlock")
                #expect(try await app.ask("lookup restart.example ada") == "secret kept")
            }
        }
    }
}
