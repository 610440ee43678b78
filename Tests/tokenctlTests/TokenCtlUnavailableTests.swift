import Foundation
import KeyringTestSupport
import Testing

/// `tokenctl` where no Secret Service can be used: no session bus, a dead one, or a service that never answers.
/// These need no keyring: each test makes its own broken environment.
@Suite("tokenctl without a usable Secret Service")
struct TokenCtlUnavailableTests {
    struct BrokenBus: CustomTestStringConvertible, Sendable {
        let name: String
        let environment: [String: String?]
        var testDescription: String { name }
    }

    static let brokenBuses = [
        // Without DBUS_SESSION_BUS_ADDRESS, GLib tries $XDG_RUNTIME_DIR/bus and then X11 autolaunch:
        // point the first at nothing and remove DISPLAY for the second.
        BrokenBus(
            name: "DBUS_SESSION_BUS_ADDRESS unset",
            environment: ["DBUS_SESSION_BUS_ADDRESS": nil, "DISPLAY": nil, "XDG_RUNTIME_DIR": "/nonexistent/runtime"]),
        BrokenBus(
            name: "DBUS_SESSION_BUS_ADDRESS at a dead socket",
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/socket", "DISPLAY": nil]),
    ]

    // "Before" and "after the timeout" are shown by the message, never by a stopwatch: when `--timeout` runs out
    // first, tokenctl reports "did not answer within 3.0 seconds" instead, so a no-bus message proves the failure
    // came first, and a "did not answer" message proves the timeout ended the call. (A stopwatch bound fails on a
    // loaded 2-core machine, where starting the process alone can take seconds.) A child that ignores its timeout
    // altogether is killed by `tokenctl(_:)`'s watchdog and fails with status -1.

    @Test("with no session bus, show exits 4 before its timeout, saying there is no Secret Service on the session bus", arguments: brokenBuses)
    func showWithoutBus(_ bus: BrokenBus) async throws {
        let result = try await tokenctl(["show", "--service", "S", "--account", "A", "--timeout", "3"], environment: bus.environment)

        #expect(result.status == 4, "\(result.allOutput)")
        #expect(result.stderr.hasPrefix("tokenctl: No Secret Service is reachable on the D-Bus session bus ("))
        #expect(result.stderr.contains("DBUS_SESSION_BUS_ADDRESS"), "the fix names the variable")
        #expect(!result.stderr.contains("did not answer"), "the timeout must not be what ended it")
        #expect(result.stdout.isEmpty)
    }

    @Test("the sentence names GLib's cause in words, without its domain and code; TOKENCTL_LOG_LEVEL=debug adds them", arguments: brokenBuses)
    func causeInWords(_ bus: BrokenBus) async throws {
        let arguments = ["show", "--service", "S", "--account", "A", "--timeout", "3"]
        let plain = try await tokenctl(arguments, environment: bus.environment.merging(["TOKENCTL_LOG_LEVEL": nil]) { $1 })
        #expect(plain.status == 4, "\(plain.allOutput)")
        #expect(!plain.stderr.contains("quark") && !plain.stderr.contains("GDBus.Error"), "\(plain.stderr)")
        let doctor = try await tokenctl(["doctor", "--timeout", "3"], environment: bus.environment)
        #expect(!doctor.stdout.contains("quark"), "\(doctor.stdout)")

        let debug = try await tokenctl(arguments, environment: bus.environment.merging(["TOKENCTL_LOG_LEVEL": "debug"]) { $1 })
        #expect(debug.status == 4, "\(debug.allOutput)")
        #expect(debug.stderr.contains("[g-io-error-quark/"), "\(debug.stderr)")
    }

    @Test("with no session bus, doctor exits 4 before its timeout, failing the session-bus check with its fix", arguments: brokenBuses)
    func doctorWithoutBus(_ bus: BrokenBus) async throws {
        let result = try await tokenctl(["doctor", "--timeout", "3"], environment: bus.environment)

        #expect(result.status == 4, "\(result.allOutput)")
        #expect(result.stdout.hasPrefix("[failed] session bus: No D-Bus session bus could be reached"))
        #expect(result.stdout.contains("dbus-run-session"), "the fix says how to get a bus")
        #expect(!result.stdout.contains("did not answer"), "the timeout must not be what ended it")
    }

    @Test("a Secret Service that never answers makes show and doctor exit 4 after --timeout, saying it did not answer in time")
    func hungService() async throws {
        let address = try await HungSecretService.with { service in
            let environment: [String: String?] = ["DBUS_SESSION_BUS_ADDRESS": service.address]

            let shown = try await tokenctl(["show", "--service", "S", "--account", "A", "--timeout", "1"], environment: environment)
            #expect(shown.status == 4, "\(shown.allOutput)")
            #expect(shown.stderr.hasPrefix("tokenctl: The Secret Service did not answer within 1"))
            #expect(shown.stderr.contains("tokenctl doctor"))

            let doctor = try await tokenctl(["doctor", "--timeout", "1"], environment: environment)
            #expect(doctor.status == 4, "\(doctor.allOutput)")
            #expect(doctor.stdout.contains("did not answer within 1"))
            return service.address
        }
        // The helper took its private bus down with it.
        let gone = try await tokenctl(["doctor", "--timeout", "3"], environment: ["DBUS_SESSION_BUS_ADDRESS": address])
        #expect(gone.status == 4)
        #expect(gone.stdout.hasPrefix("[failed] session bus"))
    }
    /// D-Bus answers a call whose provider disconnected with `NoReply`, the error it also gives a call that timed
    /// out; the provider's absence afterwards is what tells them apart.
    @Test("a provider that leaves the bus during a call is 'no Secret Service', at once, not a timeout",
          arguments: ["OpenSession", "SearchItems"])
    func providerLeavesDuringCall(method: String) async throws {
        try await VanishingSecretService.with(leavingOn: method) { service in
            let environment: [String: String?] = ["DBUS_SESSION_BUS_ADDRESS": service.address]
            // A timeout longer than any test: the answer must come from the provider's departure, not from waiting.
            let shown = try await tokenctl(["show", "--service", "S", "--account", "A", "--timeout", "600"], environment: environment)
            #expect(shown.status == 4, "\(shown.allOutput)")
            #expect(shown.stderr.hasPrefix("tokenctl: The Secret Service provider left the session bus during the call"),
                    "\(shown.stderr)")
            #expect(!shown.stderr.contains("did not answer"))
        }
    }

    /// GDBus fails the calls it awaits when its connection closes, but says so to the rest of the process only in the
    /// main context the connection was made in, which no command-line tool iterates: the package's own calls must
    /// notice the closed connection themselves, or they wait for their timeout.
    @Test("a session bus that goes away during a call (a logout) is 'no Secret Service', at once, not a timeout",
          arguments: [["token"], ["show"]])
    func busLeavesDuringCall(command: [String]) async throws {
        try await VanishingSecretService.with(leavingOn: "SearchItems", busToo: true) { service in
            let environment: [String: String?] = ["DBUS_SESSION_BUS_ADDRESS": service.address]
            // A timeout no test waits for: a "did not answer" message is the failure this guards against.
            let result = try await tokenctl(
                command + ["--service", "S", "--account", "A", "--timeout", "60"], environment: environment)
            #expect(result.status == 4, "\(result.allOutput)")
            #expect(result.stderr.hasPrefix("tokenctl: No Secret Service is reachable on the D-Bus session bus"),
                    "\(result.stderr)")
            #expect(result.stderr.contains("The connection is closed"), "\(result.stderr)")
            #expect(!result.stderr.contains("did not answer"))
        }
    }
}
