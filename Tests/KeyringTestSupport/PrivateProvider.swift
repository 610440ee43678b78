import Foundation
import Synchronization
import Testing

/// A helper process that runs a private D-Bus bus (and whatever it starts on it), prints the bus's address on its
/// first line once ready, and stops everything when its standard input closes: `scripts/lib/private-provider`,
/// `scripts/lib/hung-secret-service.py` and `scripts/lib/fake-logind.py` (which also answers questions:
/// ``ask(_:within:)``). Tests point a child process such as `tokenctl` at it (libsecret keeps one connection per
/// process, so the test process itself cannot switch buses).
public final class PrivateBusProcess: Sendable {
    /// The private bus's address, for `DBUS_SESSION_BUS_ADDRESS` (or, for `fake-logind.py`, a `SleepInhibitor`).
    public let address: String
    private let process: Process
    private let input: Pipe
    private let output: Pipe
    private let exited: AsyncStream<Void>
    /// Held from writing a question to reading its answer: one question at a time.
    private let questions = Mutex(())

    private init(address: String, process: Process, input: Pipe, output: Pipe, exited: AsyncStream<Void>) {
        self.address = address
        self.process = process
        self.input = input
        self.output = output
        self.exited = exited
    }

    /// Sends `command` to `scripts/lib/private-provider` (see there) and returns what follows its "ok".
    /// - Throws: when the helper answers with an error, exits, or does not answer within `limit`.
    @discardableResult
    public func send(_ command: String, within limit: Duration = .seconds(60)) async throws -> String {
        let answer = try await ask(command, within: limit)
        guard answer.hasPrefix("ok") else {
            throw TestKeyring.AdminError(message: "the private provider answered \"\(answer)\" to \(command)")
        }
        return String(answer.dropFirst(2)).trimmingCharacters(in: .whitespaces)
    }

    /// Runs `body` with the helper started, and stops it afterwards, also when `body` throws.
    /// - Parameter startLimit: how long the helper may take to print its address before it is ended and the test
    ///   fails with its standard error.
    public static func with<T>(
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

    /// Starts the helper and returns once it has printed its address; the caller stops it (``with(_:_:environment:startLimit:_:)``
    /// does both).
    static func start(
        _ executable: URL, _ arguments: [String], environment: [String: String], startLimit: Duration
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
        try process.run()

        // The watchdog ends a helper that hangs before printing its address; the test then fails with its stderr.
        let watchdog = Task {
            try await Task.sleep(for: startLimit)
            process.terminate()
        }
        let line = await Task.detached { Self.readLine(output.fileHandleForReading) ?? "" }.value
        watchdog.cancel()
        let started = PrivateBusProcess(
            address: line, process: process, input: input, output: output, exited: exited.stream)
        guard line.hasPrefix("unix:") else {
            await started.stop()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let name = ([executable.lastPathComponent] + arguments).joined(separator: " ")
            throw TestKeyring.AdminError(message: "\(name) printed no bus address: \(message)")
        }
        return started
    }

    /// Closes the helper's standard input, on which it stops its bus and exits; terminates it if it has not exited
    /// within ten seconds.
    public func stop() async {
        try? input.fileHandleForWriting.close()
        for _ in 0..<100 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(100))
        }
        if process.isRunning { process.terminate() }
        for await _ in exited {}
    }

    /// Writes `question` as one line to the helper's standard input and returns the one line it answers, for a
    /// helper that answers questions after its address (`scripts/lib/fake-logind.py`). One question at a time.
    /// - Throws: `TestKeyring.AdminError` when the helper has exited or exits without answering; it is ended when it
    ///   has not answered within `limit`, so the test fails instead of hanging.
    public func ask(_ question: String, within limit: Duration = .seconds(30)) async throws -> String {
        let watchdog = Task { [process] in
            try await Task.sleep(for: limit)
            process.terminate()
        }
        defer { watchdog.cancel() }
        // On a dispatch thread: a blocking read must not occupy a thread of the cooperative pool.
        let answer: String? = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in
                continuation.resume(returning: questions.withLock { _ -> String? in
                    // A helper that has exited has closed its end: writing would raise SIGPIPE in the test process.
                    guard process.isRunning else { return nil }
                    do {
                        try input.fileHandleForWriting.write(contentsOf: Data((question + "\n").utf8))
                    } catch {
                        return nil
                    }
                    return Self.readLine(output.fileHandleForReading)
                })
            }
        }
        guard let answer else {
            throw TestKeyring.AdminError(message: "the helper at \(address) did not answer \"\(question)\" (it exited)")
        }
        return answer
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

/// A Secret Service provider on a private bus of its own (`scripts/lib/private-provider`).
public enum PrivateProvider {
    /// Runs `body` with `provider` started on a private bus (with `environment` for `start_private_provider`, e.g.
    /// `TOKENKEYRING_KWALLET_WITHOUT_CRYPTO_PLUGIN=1`), and stops both afterwards, also when `body` throws.
    public static func with<T>(
        _ provider: TestProvider, environment: [String: String] = [:], _ body: (PrivateBusProcess) async throws -> T
    ) async throws -> T {
        // The script fails on its own after its waits (30 s each); 120 s ends it if it hangs anyway.
        try await PrivateBusProcess.with(
            TestKeyring.scriptsDirectory.appendingPathComponent("lib/private-provider"), [provider.rawValue],
            environment: environment, startLimit: .seconds(120), body)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only on a provider `scripts/test` started (`TOKENKEYRING_PROVIDER` is set): such tests lock the
    /// default collection or start providers of their own, which must never happen to a developer's own keyring.
    /// `scripts/test` always sets it, so there they always run, and fail when the provider is missing or another.
    public static var needsPrivateProvider: Self {
        .enabled("locks the keyring or starts providers: runs under scripts/test only") {
            ProcessInfo.processInfo.environment["TOKENKEYRING_PROVIDER"].map { !$0.isEmpty } ?? false
        }
    }
}
