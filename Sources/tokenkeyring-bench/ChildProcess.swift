import Foundation
import Synchronization

/// What a child process left behind.
struct ChildResult: Sendable {
    /// The exit status, or the number of the signal that ended it when ``signaled``.
    let status: Int32
    let signaled: Bool
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
    ///
    /// - Parameter environment: Variables set for the child on top of this process's environment.
    static func run(
        _ executable: String,
        _ arguments: [String],
        stdin: Data? = nil,
        environment: [String: String] = [:],
        timeout: Duration = .seconds(120)
    ) async throws -> ChildResult {
        try await start(executable, arguments, stdin: stdin, environment: environment, timeout: timeout).finish()
    }

    /// Starts `executable` as ``run(_:_:stdin:environment:timeout:)`` does and returns at once, for a caller that
    /// signals the child while it runs (figure 8).
    static func start(
        _ executable: String,
        _ arguments: [String],
        stdin: Data? = nil,
        environment: [String: String] = [:],
        timeout: Duration = .seconds(120)
    ) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input

        let waiter = Waiter(start: ContinuousClock.now)
        process.terminationHandler = { finished in
            waiter.exited(finished.terminationStatus, signaled: finished.terminationReason == .uncaughtSignal)
        }
        do {
            // One spawn at a time: swift-corelibs-foundation's Process.run() crashes (a memcpy from a bad
            // pointer) when several threads spawn at once, as the soak's loops do. The children still overlap.
            try spawnLock.withLock { _ in try process.run() }
        } catch {
            throw BenchFailure("could not start \(executable): \(error)")
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
        return Running(pid: pid, waiter: waiter)
    }

    /// A child started by ``start(_:_:stdin:environment:timeout:)``.
    struct Running: Sendable {
        let pid: pid_t
        fileprivate let waiter: Waiter

        /// Whether it has not exited yet: a signal sent by ``pid`` while this is `true` reaches this child.
        var isRunning: Bool { waiter.isRunning }

        /// Waits until it has exited and both outputs are read.
        func finish() async -> ChildResult {
            await withCheckedContinuation { waiter.install($0) }
        }
    }

    /// Resumes the caller once the exit status and both outputs are in.
    fileprivate final class Waiter: Sendable {
        private struct State {
            var continuation: CheckedContinuation<ChildResult, Never>?
            let start: ContinuousClock.Instant
            var status: Int32?
            var signaled = false
            var end: ContinuousClock.Instant?
            var stdout: Data?
            var stderr: Data?
        }

        private let state: Mutex<State>

        init(start: ContinuousClock.Instant) { state = Mutex(State(start: start)) }

        var isRunning: Bool { state.withLock { $0.status == nil } }

        func install(_ continuation: CheckedContinuation<ChildResult, Never>) {
            update { $0.continuation = continuation }
        }

        func exited(_ status: Int32, signaled: Bool) {
            let now = ContinuousClock.now
            update {
                $0.status = status
                $0.signaled = signaled
                $0.end = now
            }
        }

        func collected(stdout: Data) { update { $0.stdout = stdout } }
        func collected(stderr: Data) { update { $0.stderr = stderr } }

        private func update(_ change: (inout State) -> Void) {
            let ready: (CheckedContinuation<ChildResult, Never>, ChildResult)? = state.withLock { state in
                change(&state)
                guard let continuation = state.continuation, let status = state.status, let end = state.end,
                      let stdout = state.stdout, let stderr = state.stderr else { return nil }
                state.continuation = nil
                let result = ChildResult(
                    status: status, signaled: state.signaled, stdout: stdout, stderr: stderr,
                    seconds: (end - state.start).seconds)
                return (continuation, result)
            }
            if let (continuation, result) = ready { continuation.resume(returning: result) }
        }
    }
}
