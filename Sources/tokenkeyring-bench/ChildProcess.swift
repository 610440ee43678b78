import Foundation
import Synchronization

/// What a child process left behind.
struct ChildResult: Sendable {
    let status: Int32
    let stdout: Data
    let stderr: Data
    /// From just before the launch to the exit.
    let seconds: Double

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// Serializes `Process.run()` across the benchmark (see `ChildProcess.run`).
private let spawnLock = Mutex(())

/// Runs peers and `tokenctl` as child processes, each bounded in time.
enum ChildProcess {
    private static let timers = DispatchQueue(label: "tokenkeyring-bench.child-timeouts")

    /// Runs `executable` with `arguments`, feeding `stdin`, and waits for it to exit; a child still running after
    /// `timeout` is sent SIGTERM (it is our own child, by its id) and reported with its status.
    static func run(
        _ executable: String,
        _ arguments: [String],
        stdin: Data? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> ChildResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input

        let waiter = Waiter()
        let start = ContinuousClock.now
        return try await withCheckedThrowingContinuation { continuation in
            waiter.install(continuation, start: start)
            process.terminationHandler = { finished in waiter.exited(finished.terminationStatus) }
            do {
                // One spawn at a time: swift-corelibs-foundation's Process.run() crashes (a memcpy from a bad
                // pointer) when several threads spawn at once, as the soak's loops do. The children still overlap.
                try spawnLock.withLock { _ in try process.run() }
            } catch {
                waiter.fail(BenchFailure("could not start \(executable): \(error)"))
                return
            }
            // Readers of their own: children may block on a full pipe, and the cooperative pool must not.
            // Each pipe end is closed once read, and the child's end of standard input at once: descriptors left to
            // the Pipes' deallocation piled up over the soak's thousands of children until Process.run() crashed.
            try? input.fileHandleForReading.close()
            for (pipe, isStdout) in [(output, true), (errors, false)] {
                Thread.detachNewThread {
                    let handle = pipe.fileHandleForReading
                    let data = handle.readDataToEndOfFile()
                    try? handle.close()
                    if isStdout { waiter.collected(stdout: data) } else { waiter.collected(stderr: data) }
                }
            }
            let writer = input.fileHandleForWriting
            Thread.detachNewThread {
                if let stdin { try? writer.write(contentsOf: stdin) }
                try? writer.close()
            }
            let pid = process.processIdentifier
            timers.asyncAfter(deadline: .now() + timeout.seconds) {
                if waiter.isRunning { kill(pid, SIGTERM) }
            }
        }
    }

    /// Resumes the caller once the exit status and both outputs are in.
    private final class Waiter: Sendable {
        private struct State {
            var continuation: CheckedContinuation<ChildResult, any Error>?
            var start: ContinuousClock.Instant?
            var status: Int32?
            var end: ContinuousClock.Instant?
            var stdout: Data?
            var stderr: Data?
        }

        private let state = Mutex(State())

        var isRunning: Bool { state.withLock { $0.status == nil && $0.continuation != nil } }

        func install(_ continuation: CheckedContinuation<ChildResult, any Error>, start: ContinuousClock.Instant) {
            state.withLock {
                $0.continuation = continuation
                $0.start = start
            }
        }

        func exited(_ status: Int32) {
            let now = ContinuousClock.now
            update {
                $0.status = status
                $0.end = now
            }
        }

        func collected(stdout: Data) { update { $0.stdout = stdout } }
        func collected(stderr: Data) { update { $0.stderr = stderr } }

        func fail(_ error: any Error) {
            let continuation = state.withLock { state in
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(throwing: error)
        }

        private func update(_ change: (inout State) -> Void) {
            let ready: (CheckedContinuation<ChildResult, any Error>, ChildResult)? = state.withLock { state in
                change(&state)
                guard let continuation = state.continuation, let status = state.status, let end = state.end,
                      let start = state.start, let stdout = state.stdout, let stderr = state.stderr else { return nil }
                state.continuation = nil
                return (continuation, ChildResult(status: status, stdout: stdout, stderr: stderr, seconds: (end - start).seconds))
            }
            if let (continuation, result) = ready { continuation.resume(returning: result) }
        }
    }
}
