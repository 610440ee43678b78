import Foundation
import Synchronization

/// A gnome-keyring of the benchmark's own on a private D-Bus bus: `scripts/lib/private-provider gnome-keyring`,
/// which prints the bus's address, then answers one line to each command on its standard input (`stop`, `cont`,
/// `kill`, `start-locked`, `unlock`; see the script). Figure 8 stops and kills it; the user's keyring is never touched.
final class PrivateProvider: Sendable {
    /// For `DBUS_SESSION_BUS_ADDRESS` of the `tokenctl` processes that use it.
    let address: String
    private let process: Process
    private let input: FileHandle
    private let output: FileHandle
    /// Held from writing a command to reading its answer: one command at a time.
    private let commands = Mutex(())

    private init(address: String, process: Process, input: FileHandle, output: FileHandle) {
        self.address = address
        self.process = process
        self.input = input
        self.output = output
    }

    /// Starts the script at `path` and returns once it has printed the bus address.
    static func start(_ path: String) async throws -> PrivateProvider {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["gnome-keyring"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BenchFailure("could not start \(path): \(error)")
        }
        let line = await offThePool { readLine(output.fileHandleForReading) }
        let provider = PrivateProvider(
            address: line ?? "", process: process, input: input.fileHandleForWriting, output: output.fileHandleForReading)
        guard let line, line.hasPrefix("unix:") else {
            await provider.stop()
            throw BenchFailure("\(path) gnome-keyring printed no bus address (is gnome-keyring installed?)")
        }
        return provider
    }

    /// Sends one command and returns what follows its "ok".
    /// - Throws: when the script answers with an error or has exited.
    @discardableResult
    func send(_ command: String) async throws -> String {
        let answer = await offThePool { [self] in
            commands.withLock { _ -> String? in
                // A script that has exited has closed its end: writing would raise SIGPIPE here.
                guard process.isRunning, (try? input.write(contentsOf: Data((command + "\n").utf8))) != nil else {
                    return nil
                }
                return Self.readLine(output)
            }
        }
        guard let answer, answer.hasPrefix("ok") else {
            throw BenchFailure("the private provider answered \"\(answer ?? "nothing (it exited)")\" to \(command)")
        }
        return String(answer.dropFirst(2)).trimmingCharacters(in: .whitespaces)
    }

    /// Closes the script's standard input, on which it stops its keyring and bus; terminates it after ten seconds.
    func stop() async {
        try? input.close()
        for _ in 0..<100 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(100))
        }
        if process.isRunning { process.terminate() }
        await offThePool { [process] in process.waitUntilExit() }
    }

    /// The next line on `handle`, without its newline; `nil` when the end comes first. The script prints one line,
    /// then waits for the next command, so nothing beyond the line is read.
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
func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: work()) }
    }
}
