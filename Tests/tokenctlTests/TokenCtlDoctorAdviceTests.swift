import ChildProcesses
import Foundation
import KeyringTestSupport
import TestSupport
import Testing

/// `tokenctl doctor`'s fixes fit the machine: on a desktop, Seahorse and the unlock prompt; without a display —
/// over SSH, on a server — gnome-keyring's `--unlock` with the password on standard input, which needs neither.
@Suite("tokenctl doctor's advice fits the machine", .needsPrivateProvider, .serialized)
struct TokenCtlDoctorAdviceTests {
    static let unlock = "printf '%s' \"$PASSWORD\" | gnome-keyring-daemon --replace --unlock --components=secrets"

    /// `doctor` on `bus`, without a display, or with `DISPLAY=:0`.
    static func doctor(on bus: PrivateBusProcess, display: Bool) async throws -> ChildResult {
        try await tokenctl(["doctor", "--timeout", "10"], environment: [
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "DISPLAY": display ? ":0" : nil, "WAYLAND_DISPLAY": nil,
        ])
    }

    @Test("a locked login keyring: without a display, the password on standard input; with one, Seahorse")
    func lockedKeyring() async throws {
        try await PrivateProvider.with(.gnomeKeyring) { bus in
            // gnome-keyring started again without its password, as D-Bus activation starts it: login is locked.
            try await bus.send("kill")
            try await bus.send("start-locked")
            let headless = try await Self.doctor(on: bus, display: false)
            #expect(headless.status == 0, "locked is a warning: \(headless.allOutput)")
            #expect(headless.stdout.contains("[warning] default collection: "), "\(headless.stdout)")
            #expect(headless.stdout.contains("is locked — There is no display here"), "\(headless.stdout)")
            #expect(headless.stdout.contains(Self.unlock), "\(headless.stdout)")
            #expect(!headless.stdout.contains("Seahorse,"), "\(headless.stdout)")

            let desktop = try await Self.doctor(on: bus, display: true)
            #expect(desktop.stdout.contains("is locked — Unlock it (Seahorse, or the prompt an app shows)"), "\(desktop.stdout)")
            #expect(!desktop.stdout.contains("gnome-keyring-daemon --replace"), "\(desktop.stdout)")
        }
    }

    @Test("no default keyring: without a display, the command that creates the login keyring; with one, Seahorse")
    func noDefaultKeyring() async throws {
        try await PrivateProvider.with(.gnomeKeyring) { bus in
            let deleted = try await runCommand(
                "/usr/bin/python3",
                [TestKeyring.scriptsDirectory.appendingPathComponent("lib/gnome-keyring-admin.py").path, "delete",
                 "/org/freedesktop/secrets/collection/login"],
                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], timeout: .seconds(30))
            try #require(deleted.status == 0, "\(deleted.allOutput)")
            let headless = try await Self.doctor(on: bus, display: false)
            #expect(headless.status == 4, "\(headless.allOutput)")
            #expect(headless.stdout.contains("[failed] default collection: The Secret Service has no default keyring"),
                    "\(headless.stdout)")
            #expect(headless.stdout.contains("create the login keyring, which becomes the default"), "\(headless.stdout)")
            #expect(headless.stdout.contains(Self.unlock), "\(headless.stdout)")
            #expect(!headless.stdout.contains("Seahorse)"), "\(headless.stdout)")

            let desktop = try await Self.doctor(on: bus, display: true)
            #expect(desktop.status == 4)
            #expect(desktop.stdout.contains("Create a default keyring (for example with Seahorse)"), "\(desktop.stdout)")
        }
    }
}
