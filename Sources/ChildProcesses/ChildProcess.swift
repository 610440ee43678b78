import Foundation
import Synchronization

/// Serializes the spawns across the process (see ``ChildProcess/start(_:_:stdin:environment:timeout:)``).
private let spawnLock = Mutex(())

/// A child process of the tests or the benchmarks: `tokenctl`, `secret-tool`, a helper script. Started with optional
/// standard input and environment changes, bounded in time, its output collected as it comes.
///
/// The one runner of the package's tests and of `tokenkeyring-bench`, which need the same things of it: output read
/// on threads of its own, so that neither a chatty child (blocked on a full pipe) nor the reads occupy Swift's
/// cooperative pool; a time limit that ends a hung child instead of hanging the caller; the pid, for a caller that
/// signals the child while it runs; and one spawn at a time. Not in any product: an app never builds it.
package final class ChildProcess: Sendable {
    private let collector: Collector
    /// The child's process id, e.g. to signal it at a moment of the caller's choosing while ``isRunning``.
    package let pid: pid_t

    private init(pid: pid_t, collector: Collector) {
        self.pid = pid
        self.collector = collector
    }

    /// Runs `executable` with `arguments` to its end: see ``start(_:_:stdin:environment:timeout:)``.
    package static func run(
        _ executable: String,
        _ arguments: [String],
        stdin: Data? = nil,
        environment: [String: String?] = [:],
        timeout: Duration
    ) async throws -> ChildResult {
        try await start(executable, arguments, stdin: stdin, environment: environment, timeout: timeout).finish()
    }

    /// Starts `executable` with `arguments` and returns at once.
    ///
    /// - Parameters:
    ///   - stdin: Written to the child's standard input, which is then closed (at once when `nil`), on a thread of
    ///     its own: a child that reads slowly, or not at all, blocks no caller.
    ///   - environment: Changes to this process's environment for the child: a value sets a variable, `nil` removes it.
    ///   - timeout: How long the child may run: one still running then is sent SIGKILL, not SIGTERM (a child spawned
    ///     from a libdispatch thread, as Swift's cooperative pool is on Linux, inherits a signal mask that blocks
    ///     SIGTERM, so SIGTERM would never end a hung child), and is reported as ended by that signal.
    /// - Throws: `POSIXError` when the executable cannot be started (ENOENT, EACCES, …).
    package static func start(
        _ executable: String,
        _ arguments: [String],
        stdin: Data? = nil,
        environment: [String: String?] = [:],
        timeout: Duration
    ) throws -> ChildProcess {
        var environmentAfter = ProcessInfo.processInfo.environment
        for (name, value) in environment { environmentAfter[name] = value }
        let input = try Spawn.pipe(), output = try Spawn.pipe(), errors = try Spawn.pipe()
        let collector = Collector(start: ContinuousClock.now)
        // posix_spawn of our own (Spawn): Foundation's Process.run() over-reads /proc/self/fd's entries and crashed
        // test runs now and then. Its pipes' ends close on exec; the child gets its own as 0, 1 and 2.
        let pid: pid_t
        do {
            pid = try spawnLock.withLock { _ in
                try Spawn.start(executable, arguments, environment: environmentAfter, streams: (input.0, output.1, errors.1))
            }
        } catch {
            for descriptor in [input.0, input.1, output.0, output.1, errors.0, errors.1] { close(descriptor) }
            throw error
        }
        // The child's ends, closed here at once: each pipe then ends when the child's copy does.
        for descriptor in [input.0, output.1, errors.1] { close(descriptor) }
        Thread.detachNewThread {
            let (status, signal) = Spawn.wait(pid)
            collector.exited(status: status, signal: signal, at: ContinuousClock.now)
        }
        for (descriptor, isStdout) in [(output.0, true), (errors.0, false)] {
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
            Thread.detachNewThread { collector.read(handle, isStdout: isStdout) }
        }
        let writer = FileHandle(fileDescriptor: input.1, closeOnDealloc: false)
        Thread.detachNewThread {
            if let stdin { try? writer.write(contentsOf: stdin) }
            try? writer.close()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds(timeout)) {
            // Our own child, by its id, and only while it has not been reaped (its pid may name another process then).
            if collector.isRunning { kill(pid, SIGKILL) }
        }
        return ChildProcess(pid: pid, collector: collector)
    }

    /// Whether it has not exited yet: a signal sent to ``pid`` while this is `true` reaches this child.
    package var isRunning: Bool { collector.isRunning }

    /// Whether it has exited and both its outputs are read to their end: ``finish()`` returns at once.
    package var isFinished: Bool { collector.isFinished }

    /// Standard output so far.
    package var stdoutSoFar: String { collector.soFar(isStdout: true) }

    /// Standard error so far.
    package var stderrSoFar: String { collector.soFar(isStdout: false) }

    /// Waits until it has exited (it is killed once its time limit has passed) and both outputs are read, and returns
    /// its outcome. May be called more than once.
    package func finish() async -> ChildResult {
        await withCheckedContinuation { collector.whenFinished($0) }
    }
}

/// The output and the exit of one child, shared by the reading threads, the termination handler and the waiters.
private final class Collector: Sendable {
    private struct State {
        var stdout = Data()
        var stderr = Data()
        /// Set by the termination handler: the process has been reaped.
        var exit: (status: Int32, signal: Int32?, end: ContinuousClock.Instant)?
        /// Pipes not yet read to their end.
        var openPipes = 2
        var result: ChildResult?
        var waiters: [CheckedContinuation<ChildResult, Never>] = []
    }

    private let state = Mutex(State())
    private let start: ContinuousClock.Instant

    init(start: ContinuousClock.Instant) { self.start = start }

    var isRunning: Bool { state.withLock { $0.exit == nil } }
    var isFinished: Bool { state.withLock { $0.result != nil } }

    func soFar(isStdout: Bool) -> String {
        state.withLock { String(decoding: isStdout ? $0.stdout : $0.stderr, as: UTF8.self) }
    }

    /// Reads `handle` to its end, blocking this thread (one of its own), and closes it.
    func read(_ handle: FileHandle, isStdout: Bool) {
        while case let chunk = handle.availableData, !chunk.isEmpty {
            state.withLock { isStdout ? $0.stdout.append(chunk) : $0.stderr.append(chunk) }
        }
        try? handle.close()
        update { $0.openPipes -= 1 }
    }

    func exited(status: Int32, signal: Int32?, at end: ContinuousClock.Instant) {
        update { $0.exit = (status, signal, end) }
    }

    func whenFinished(_ waiter: CheckedContinuation<ChildResult, Never>) {
        update { $0.waiters.append(waiter) }
    }

    /// Applies `change`, then resumes the waiters once the exit and both outputs are in.
    private func update(_ change: (inout State) -> Void) {
        let (waiters, result): ([CheckedContinuation<ChildResult, Never>], ChildResult?) = state.withLock { state in
            change(&state)
            if state.result == nil, let exit = state.exit, state.openPipes == 0 {
                state.result = ChildResult(
                    status: exit.status, signal: exit.signal, stdoutData: state.stdout, stderrData: state.stderr,
                    seconds: seconds(exit.end - start))
            }
            guard let result = state.result else { return ([], nil) }
            defer { state.waiters = [] }
            return (state.waiters, result)
        }
        if let result { for waiter in waiters { waiter.resume(returning: result) } }
    }
}

/// `duration` in (fractional) seconds.
private func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
}
