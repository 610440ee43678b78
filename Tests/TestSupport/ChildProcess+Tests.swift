import ChildProcesses
import Foundation

/// Runs a program to completion with optional standard input and environment changes (`nil` removes a variable):
/// ``ChildProcess``, with the tests' defaults. A child still running after `timeout` is killed; a child ended by a
/// signal has status -1, so that a hung child fails a test instead of hanging it.
package func runCommand(
    _ executable: String,
    _ arguments: [String],
    stdin: String? = nil,
    environment: [String: String?] = [:],
    timeout: Duration = .seconds(60)
) async throws -> ChildResult {
    try await startCommand(executable, arguments, stdin: stdin, environment: environment, timeout: timeout).finish()
}

/// Starts a program as ``runCommand(_:_:stdin:environment:timeout:)`` does and returns at once, for a test that
/// interacts with it while it runs: waits for a line that says where the child is, or signals it by its pid.
package func startCommand(
    _ executable: String,
    _ arguments: [String],
    stdin: String? = nil,
    environment: [String: String?] = [:],
    timeout: Duration = .seconds(60)
) throws -> ChildProcess {
    try ChildProcess.start(
        executable, arguments, stdin: stdin.map { Data($0.utf8) }, environment: environment, timeout: timeout)
}

extension ChildProcess {
    /// Waits until standard error contains `text` (`true`), or the process has finished without printing it (`false`).
    /// - Throws: `WaitTimedOut` when neither happens within `limit`, naming `text` and what the process printed so
    ///   far: the test fails instead of going on.
    package func waitForStderr(containing text: String, within limit: Duration = .seconds(60)) async throws -> Bool {
        try await waitUntil("\"\(text)\" on standard error, or the exit; it printed: \(stderrSoFar)", within: limit) {
            isFinished || stderrSoFar.contains(text)
        }
        return stderrSoFar.contains(text)
    }

    /// Waits until standard output contains `text` (`true`), or the process has finished without printing it
    /// (`false`).
    /// - Throws: `WaitTimedOut` when neither happens within `limit`, naming `text` and what the process printed so
    ///   far: the test fails instead of going on.
    package func waitForStdout(containing text: String, within limit: Duration = .seconds(60)) async throws -> Bool {
        try await waitUntil("\"\(text)\" on standard output, or the exit; it printed: \(stdoutSoFar)", within: limit) {
            isFinished || stdoutSoFar.contains(text)
        }
        return stdoutSoFar.contains(text)
    }
}
