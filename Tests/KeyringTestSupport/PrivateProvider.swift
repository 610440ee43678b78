import Foundation
import Testing

/// A Secret Service provider on a private bus of its own (`scripts/lib/private-provider`), for tests that point a
/// child process such as `tokenctl` at a provider other than the one their own process uses (libsecret keeps one
/// connection per process, so the test process itself cannot switch buses).
public final class PrivateProvider: Sendable {
    /// The private bus's address, for `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    private let process: Process
    private let input: Pipe
    private let exited: AsyncStream<Void>

    private init(address: String, process: Process, input: Pipe, exited: AsyncStream<Void>) {
        self.address = address
        self.process = process
        self.input = input
        self.exited = exited
    }

    /// Runs `body` with `provider` started on a private bus (with `environment` for `start_private_provider`, e.g.
    /// `TOKENKEYRING_KWALLET_WITHOUT_CRYPTO_PLUGIN=1`), and stops both afterwards, also when `body` throws.
    public static func with<T>(
        _ provider: TestProvider, environment: [String: String] = [:], _ body: (PrivateProvider) async throws -> T
    ) async throws -> T {
        let started = try await start(provider, environment: environment)
        let result: Result<T, any Error>
        do { result = .success(try await body(started)) } catch { result = .failure(error) }
        await started.stop()
        return try result.get()
    }

    private static func start(_ provider: TestProvider, environment: [String: String]) async throws -> PrivateProvider {
        let process = Process()
        process.executableURL = TestKeyring.scriptsDirectory.appendingPathComponent("lib/private-provider")
        process.arguments = [provider.rawValue]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.finish() }
        try process.run()

        // The script prints the address once the provider is ready; it fails on its own after its waits (30 s
        // each), and this watchdog ends it if it hangs anyway. Either way the test fails with the script's stderr.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            process.terminate()
        }
        let line = await Task.detached { Self.readLine(output.fileHandleForReading) }.value
        watchdog.cancel()
        let started = PrivateProvider(address: line, process: process, input: input, exited: exited.stream)
        guard line.hasPrefix("unix:") else {
            await started.stop()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw TestKeyring.AdminError(message: "scripts/lib/private-provider \(provider.rawValue) printed no bus address: \(message)")
        }
        return started
    }

    /// Closes the script's standard input, on which it stops the provider and its bus; terminates it if it has not
    /// exited within ten seconds.
    public func stop() async {
        try? input.fileHandleForWriting.close()
        for _ in 0..<100 where process.isRunning {
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
        return String(String(decoding: data, as: UTF8.self).prefix { $0 != "\n" })
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
