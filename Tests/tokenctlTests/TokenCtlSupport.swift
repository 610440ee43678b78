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
