import ChildProcesses
import Foundation
import KeyringTestSupport
import Testing
import TestSupport

/// The `tokenctl` executable that `swift build --build-tests` put next to the test bundle.
enum TokenCtlBinary {
    /// Where to look, in order: beside the test bundle (SwiftPM's products directory), then the
    /// repository's default debug build.
    static var candidates: [URL] { BuiltExecutable.candidates("tokenctl") }

    /// The first candidate that is an executable file.
    static let path: String? = BuiltExecutable.path("tokenctl")
}

/// Runs `tokenctl` with `arguments`, optional standard input and environment changes (`nil` removes a variable).
func tokenctl(
    _ arguments: [String],
    stdin: String? = nil,
    environment: [String: String?] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> ChildResult {
    let path = try tokenctlPath(sourceLocation: sourceLocation)
    return try await runCommand(path, arguments, stdin: stdin, environment: environment, timeout: .seconds(30))
}

/// The `tokenctl` executable, or a failed requirement naming where it was looked for.
func tokenctlPath(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    try #require(
        TokenCtlBinary.path,
        "no tokenctl executable among \(TokenCtlBinary.candidates.map(\.path)); run `swift build --build-tests`",
        sourceLocation: sourceLocation)
}

extension ChildResult {
    /// Standard output and standard error together, for checks that a string appears in neither.
    var allOutput: String { stdout + stderr }

    /// Standard output parsed as JSON.
    func json<T>(as type: T.Type = [String: Any].self, sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
        try #require(
            try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? T,
            "stdout is not JSON of the expected shape: \(stdout)", sourceLocation: sourceLocation)
    }
}

/// A Secret Service that owns its bus name and never answers: `scripts/lib/hung-secret-service.py`, which runs
/// a private `dbus-daemon` of its own and stops it when its standard input closes or it receives SIGTERM.
enum HungSecretService {
    /// Runs `body` with a hung Secret Service, and stops the service and its bus afterwards, also when `body` throws.
    static func with<T>(_ body: (PrivateBusProcess) async throws -> T) async throws -> T {
        try await PrivateBusProcess.with(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [TestKeyring.scriptsDirectory.appendingPathComponent("lib/hung-secret-service.py").path],
            startLimit: .seconds(15), body)
    }
}

/// A Secret Service that closes its connection, without answering, when `method` is called:
/// `scripts/lib/vanishing-secret-service.py`, a provider that crashes in the middle of a call. Its private bus
/// activates nothing, so the name stays without an owner afterwards.
enum VanishingSecretService {
    /// Runs `body` with such a service, and stops its bus afterwards, also when `body` throws.
    static func with<T>(leavingOn method: String, _ body: (PrivateBusProcess) async throws -> T) async throws -> T {
        try await PrivateBusProcess.with(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [TestKeyring.scriptsDirectory.appendingPathComponent("lib/vanishing-secret-service.py").path, method],
            startLimit: .seconds(15), body)
    }
}
