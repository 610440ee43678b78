import Foundation
import Synchronization

/// The outcome of a finished child process.
public struct CommandResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// Serializes `Process.run()` across the test process (see `runCommand`).
private let spawnLock = Mutex(())

/// Reads a pipe to its end on a dispatch thread: a blocking read must never occupy one of the few threads
/// of Swift's cooperative pool, where the in-process test servers run too.
private func readToEnd(_ handle: FileHandle) async -> Data {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: handle.readDataToEndOfFile()) }
    }
}

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
    process.terminationHandler = { exited.continuation.yield($0.terminationStatus); exited.continuation.finish() }
    // One spawn at a time: swift-corelibs-foundation's Process.run() crashed (memmove, bad pointer) when dozens of
    // tests spawned children at once. Only the spawn is serialized; the children still run side by side.
    try spawnLock.withLock { _ in try process.run() }
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    async let stdoutData = readToEnd(out.fileHandleForReading)
    async let stderrData = readToEnd(err.fileHandleForReading)
    let watchdog = Task {
        try await Task.sleep(for: timeout)
        // SIGKILL, not `terminate()`: a child spawned from a libdispatch thread inherits a signal mask
        // that blocks SIGTERM, so SIGTERM would never end a hung child.
        kill(process.processIdentifier, SIGKILL)
    }
    var status: Int32 = -1
    for await code in exited.stream { status = code }
    watchdog.cancel()
    return CommandResult(
        status: process.terminationReason == .uncaughtSignal ? -1 : status,
        stdout: String(decoding: await stdoutData, as: UTF8.self),
        stderr: String(decoding: await stderrData, as: UTF8.self))
}
