import Foundation
import KeyringTestSupport
import Testing

/// The `tokenctl` executable that `swift build --build-tests` put next to the test bundle.
enum TokenctlBinary {
    /// Where to look, in order: beside the test bundle (SwiftPM's products directory), then the
    /// repository's default debug build.
    static var candidates: [URL] {
        var directories = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ]
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        directories.append(repository.appendingPathComponent(".build/debug"))
        return directories.map { $0.appendingPathComponent("tokenctl") }
    }

    /// The first candidate that is an executable file.
    static let path: String? = candidates.map(\.path).first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Runs `tokenctl` with `arguments`, optional standard input and environment changes (`nil` removes a variable).
func tokenctl(
    _ arguments: [String],
    stdin: String? = nil,
    environment: [String: String?] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> CommandResult {
    let path = try #require(
        TokenctlBinary.path,
        "no tokenctl executable among \(TokenctlBinary.candidates.map(\.path)); run `swift build --build-tests`",
        sourceLocation: sourceLocation)
    return try await runCommand(path, arguments, stdin: stdin, environment: environment, timeout: .seconds(30))
}

extension CommandResult {
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
final class HungSecretService: Sendable {
    /// The private bus's address, for `DBUS_SESSION_BUS_ADDRESS`.
    let address: String
    private let process: Process
    private let input: Pipe
    private let exited: AsyncStream<Void>

    private init(address: String, process: Process, input: Pipe, exited: AsyncStream<Void>) {
        self.address = address
        self.process = process
        self.input = input
        self.exited = exited
    }

    /// Runs `body` with a hung Secret Service, and stops the service and its bus afterwards, also when `body` throws.
    static func with<T>(_ body: (HungSecretService) async throws -> T) async throws -> T {
        let service = try await start()
        let result: Result<T, any Error>
        do { result = .success(try await body(service)) } catch { result = .failure(error) }
        await service.stop()
        return try result.get()
    }

    private static func start() async throws -> HungSecretService {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [TestKeyring.scriptsDirectory.appendingPathComponent("lib/hung-secret-service.py").path]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.finish() }
        try process.run()

        // The script prints the address once it owns org.freedesktop.secrets; give up after a while.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(15))
            process.terminate()
        }
        let line = await Task.detached { Self.readLine(output.fileHandleForReading) }.value
        watchdog.cancel()
        let service = HungSecretService(address: line, process: process, input: input, exited: exited.stream)
        guard line.hasPrefix("unix:") else {
            await service.stop()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw StartFailure(message: "hung-secret-service.py printed no bus address: \(message)")
        }
        return service
    }

    /// Closes the script's standard input, on which it stops its dbus-daemon and exits; terminates it if it
    /// has not exited within five seconds.
    func stop() async {
        try? input.fileHandleForWriting.close()
        for _ in 0..<50 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(100))
        }
        if process.isRunning { process.terminate() }
        for await _ in exited {}
    }

    private static func readLine(_ handle: FileHandle) -> String {
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        let text = String(decoding: data, as: UTF8.self)
        return String(text.prefix { $0 != "\n" })
    }

    struct StartFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
