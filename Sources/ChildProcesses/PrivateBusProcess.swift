import Dispatch
import Foundation
import Synchronization

/// A helper process that runs a private D-Bus bus (and whatever it starts on it), prints the bus's address on its
/// first line once ready, answers one line to each line written to its standard input, and stops everything when its
/// standard input closes: `scripts/lib/private-provider` (commands such as `stop`, `cont`, `kill`, `start-locked`,
/// `unlock`; see the script), `scripts/lib/hung-secret-service.py` and `scripts/lib/fake-logind.py`.
///
/// The tests and `tokenkeyring-bench` point child processes such as `tokenctl` at it (libsecret keeps one connection
/// per process, so the process that starts it cannot switch buses itself). Every blocking read and wait runs on a
/// dispatch thread, never on Swift's cooperative pool.
package final class PrivateBusProcess: Sendable {
    /// The helper failed to start, answered with an error, or exited: what happened, with its standard error where
    /// that tells why.
    package struct Failure: Error, CustomStringConvertible {
        package let message: String
        package var description: String { message }
    }

    /// The private bus's address, for `DBUS_SESSION_BUS_ADDRESS` (or, for `fake-logind.py`, a `SleepInhibitor`).
    package let address: String
    private let process: Process
    private let input: Pipe
    private let output: Pipe
    private let exited: AsyncStream<Void>
    /// Held from writing a line to reading its answer: one question at a time.
    private let questions = Mutex(())

    private init(address: String, process: Process, input: Pipe, output: Pipe, exited: AsyncStream<Void>) {
        self.address = address
        self.process = process
        self.input = input
        self.output = output
        self.exited = exited
    }

    /// Runs `body` with the helper started, and stops it afterwards, also when `body` throws.
    package static func with<T>(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String] = [:],
        startLimit: Duration,
        _ body: (PrivateBusProcess) async throws -> T
    ) async throws -> T {
        let started = try await start(executable, arguments, environment: environment, startLimit: startLimit)
        let result: Result<T, any Error>
        do { result = .success(try await body(started)) } catch { result = .failure(error) }
        await started.stop()
        return try result.get()
    }

    /// Starts the helper and returns once it has printed its address; the caller stops it
    /// (``with(_:_:environment:startLimit:_:)`` does both).
    /// - Parameter startLimit: How long the helper may take to print its address before it is ended and this throws
    ///   with its standard error.
    package static func start(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], startLimit: Duration
    ) async throws -> PrivateBusProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.finish() }
        let name = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        do {
            try process.run()
        } catch {
            throw Failure(message: "could not start \(name): \(error)")
        }

        // The watchdog ends a helper that hangs before printing its address; this then throws with its stderr.
        let watchdog = Task {
            try await Task.sleep(for: startLimit)
            process.terminate()
        }
        let line = await offThePool { readLine(output.fileHandleForReading) ?? "" }
        watchdog.cancel()
        let started = PrivateBusProcess(address: line, process: process, input: input, output: output, exited: exited.stream)
        guard line.hasPrefix("unix:") else {
            await started.stop()
            let message = await offThePool { String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
            throw Failure(message: "\(name) printed no bus address: \(message)")
        }
        // Read and dropped from here on: a helper whose daemons log must never block on a full pipe.
        DispatchQueue.global().async {
            while !errors.fileHandleForReading.availableData.isEmpty {}
        }
        return started
    }

    /// Sends `command` (to `scripts/lib/private-provider`, see there) and returns what follows its "ok".
    /// - Throws: ``Failure`` when the helper answers with an error, exits, or does not answer within `limit`.
    @discardableResult
    package func send(_ command: String, within limit: Duration = .seconds(60)) async throws -> String {
        let answer = try await ask(command, within: limit)
        guard answer.hasPrefix("ok") else {
            throw Failure(message: "the private provider answered \"\(answer)\" to \(command)")
        }
        return String(answer.dropFirst(2)).trimmingCharacters(in: .whitespaces)
    }

    /// Writes `question` as one line to the helper's standard input and returns the one line it answers. One
    /// question at a time.
    /// - Throws: ``Failure`` when the helper has exited or exits without answering; it is ended when it has not
    ///   answered within `limit`, so the caller fails instead of hanging.
    package func ask(_ question: String, within limit: Duration = .seconds(30)) async throws -> String {
        let watchdog = Task { [process] in
            try await Task.sleep(for: limit)
            process.terminate()
        }
        defer { watchdog.cancel() }
        let answer = await offThePool { [self] in
            questions.withLock { _ -> String? in
                // A helper that has exited has closed its end: writing would raise SIGPIPE in this process.
                guard process.isRunning,
                    (try? input.fileHandleForWriting.write(contentsOf: Data((question + "\n").utf8))) != nil
                else { return nil }
                return Self.readLine(output.fileHandleForReading)
            }
        }
        guard let answer else {
            throw Failure(message: "the helper at \(address) did not answer \"\(question)\" (it exited)")
        }
        return answer
    }

    /// Closes the helper's standard input, on which it stops its bus and exits; terminates it if it has not exited
    /// within ten seconds.
    package func stop() async {
        try? input.fileHandleForWriting.close()
        for _ in 0..<100 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(100))
        }
        if process.isRunning { process.terminate() }
        for await _ in exited {}
    }

    /// The next line on `handle`, without its newline; `nil` when the end comes first. Reads nothing beyond the
    /// chunk that holds the newline: each helper prints one line, then waits for the next question.
    private static func readLine(_ handle: FileHandle) -> String? {
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            data.append(chunk)
        }
        return String(String(decoding: data, as: UTF8.self).prefix { $0 != "\n" })
    }
}

/// Runs blocking `work` (a pipe read, a wait for a process) on a dispatch thread, never on the cooperative pool.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: work()) }
    }
}
