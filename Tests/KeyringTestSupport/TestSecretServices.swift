import ChildProcesses
import Foundation

/// A Secret Service that owns its bus name and never answers: `scripts/lib/hung-secret-service.py`, which runs
/// a private `dbus-daemon` of its own and stops it when its standard input closes or it receives SIGTERM.
package enum HungSecretService {
    /// Runs `body` with a hung Secret Service, and stops the service and its bus afterwards, also when `body` throws.
    package static func with<T>(_ body: (PrivateBusProcess) async throws -> T) async throws -> T {
        try await PrivateBusProcess.with(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [TestKeyring.scriptsDirectory.appendingPathComponent("lib/hung-secret-service.py").path],
            startLimit: .seconds(15), body)
    }
}

/// A Secret Service that closes its connection, without answering, when `method` is called:
/// `scripts/lib/vanishing-secret-service.py`, a provider that crashes in the middle of a call. Its private bus
/// activates nothing, so the name stays without an owner afterwards. With `busToo`, it kills its bus instead, as a
/// session that ends does.
package enum VanishingSecretService {
    /// Runs `body` with such a service, and stops its bus afterwards, also when `body` throws.
    package static func with<T>(
        leavingOn method: String, busToo: Bool = false, _ body: (PrivateBusProcess) async throws -> T
    ) async throws -> T {
        let script = TestKeyring.scriptsDirectory.appendingPathComponent("lib/vanishing-secret-service.py").path
        return try await PrivateBusProcess.with(
            URL(fileURLWithPath: "/usr/bin/python3"), [script, method] + (busToo ? ["--bus-too"] : []),
            startLimit: .seconds(15), body)
    }
}
