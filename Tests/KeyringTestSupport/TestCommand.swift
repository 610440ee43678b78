import Foundation
import Synchronization
import TestSupport

/// The outcome of a finished child process.
public struct CommandResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// Serializes `Process.run()` across the test process (see `startCommand`).
private let spawnLock = Mutex(())

/// Runs a program to completion with optional standard input and extra or removed environment variables.
///
/// Output is read concurrently so a chatty child cannot block on a full pipe. A child still running after
/// `timeout` is killed; a child killed by a signal is reported with status -1, so a hung child fails a test instead of hanging it.
public func runCommand(
    _ executable: String,
    _ arguments: [String],
    stdin: String? = nil,
    environment: [String: String?] = [:],
    timeout: Duration = .seconds(60)
) async throws -> CommandResult {
    try await startCommand(executable, arguments, stdin: stdin, environment: environment, timeout: timeout).finish()
}

/// A child process started by ``startCommand(_:_:stdin:environment:timeout:)`` that the test interacts with while
/// it runs: its output is collected as it comes, so the test can wait for a line that says where the child is.
public final class RunningCommand: Sendable {
    private struct State {
        var stdout = Data()
        var stderr = Data()
        var exited = false
    }

    /// The output and exit so far, shared with the reading threads.
    private final class Shared: Sendable {
        let mutex = Mutex(State())
        func withLock<T: Sendable>(_ body: (inout sending State) -> sending T) -> T { mutex.withLock(body) }
    }

    private let state = Shared()
    private let exit: Task<CommandResult, Never>
    /// The child's process id, e.g. to kill it at a moment of the test's choosing.
    public let pid: Int32

    fileprivate init(pid: Int32, out: Pipe, err: Pipe, exited: AsyncStream<Int32>, timeout: Duration) {
        self.pid = pid
        let state = state
        let readers = [(out, true), (err, false)].map { pipe, isStdout in
            Task.detached {
                // On a dispatch thread: a blocking read must not occupy a thread of the cooperative pool.
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().async {
                        let handle = pipe.fileHandleForReading
                        while case let chunk = handle.availableData, !chunk.isEmpty {
                            state.withLock { isStdout ? $0.stdout.append(chunk) : $0.stderr.append(chunk) }
                        }
                        try? handle.close()
                        done.resume()
                    }
                }
            }
        }
        exit = Task {
            let watchdog = Task {
                try await Task.sleep(for: timeout)
                // SIGKILL, not SIGTERM: a child spawned from a libdispatch thread inherits a signal mask that blocks
                // SIGTERM, so SIGTERM would never end a hung child.
                kill(pid, SIGKILL)
            }
            var status: Int32 = -1
            for await code in exited { status = code }
            watchdog.cancel()
            for reader in readers { await reader.value }
            return state.withLock {
                $0.exited = true
                return CommandResult(
                    status: status, stdout: String(decoding: $0.stdout, as: UTF8.self),
                    stderr: String(decoding: $0.stderr, as: UTF8.self))
            }
        }
    }

    /// Standard error so far.
    public var stderrSoFar: String { state.withLock { String(decoding: $0.stderr, as: UTF8.self) } }

    /// Waits until standard error contains `text` (`true`), or the process has exited without printing it (`false`).
    /// - Throws: `WaitTimedOut` when neither happens within `limit`, naming `text` and what the process printed so
    ///   far: the test fails instead of going on.
    public func waitForStderr(containing text: String, within limit: Duration = .seconds(60)) async throws -> Bool {
        try await waitUntil("\"\(text)\" on standard error, or the exit; it printed: \(stderrSoFar)", within: limit) {
            state.withLock { $0.exited } || stderrSoFar.contains(text)
        }
        return stderrSoFar.contains(text)
    }

    /// Waits for the process to exit (it is killed once its time limit has passed) and returns its outcome.
    public func finish() async -> CommandResult {
        await exit.value
    }
}

/// Starts a program with optional standard input and environment changes (`nil` removes a variable), and returns at
/// once: see ``RunningCommand``. It is killed if still running after `timeout`.
public func startCommand(
    _ executable: String,
    _ arguments: [String],
    stdin: String? = nil,
    environment: [String: String?] = [:],
    timeout: Duration = .seconds(60)
) throws -> RunningCommand {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    let exited = AsyncStream<Int32>.makeStream()
    process.terminationHandler = {
        exited.continuation.yield($0.terminationReason == .uncaughtSignal ? -1 : $0.terminationStatus)
        exited.continuation.finish()
    }
    // One spawn at a time: swift-corelibs-foundation's Process.run() crashed (memmove, bad pointer) when dozens of
    // tests spawned children at once. Only the spawn is serialized; the children still run side by side.
    try spawnLock.withLock { _ in try process.run() }
    try? input.fileHandleForReading.close()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    return RunningCommand(pid: process.processIdentifier, out: out, err: err, exited: exited.stream, timeout: timeout)
}
