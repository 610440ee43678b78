#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import TokenAuth

/// This program started again as a process of its own: in a new session (`setsid`), so that no signal to the app, its
/// process group or its terminal reaches it, with every signal at its default and none blocked.
enum SpawnedProcess {
    /// Runs `/proc/self/exe` with `variable=1` added to this process's environment and only the program's name as
    /// arguments; writes `input` to its standard input, and returns its standard output once it ended. Blocks: call
    /// it on a thread of its own, whose SIGPIPE it blocks for good (a process that ended before reading makes the
    /// write fail instead of ending the app; the pending signal goes with the thread).
    static func run(variable: String, input: Data) throws -> Data {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        guard closedOnExec(pipe(&toChild), toChild) else { throw failure("no pipe", errno) }
        guard closedOnExec(pipe(&fromChild), fromChild) else {
            close(toChild[0])
            close(toChild[1])
            throw failure("no pipe", errno)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], STDOUT_FILENO)

        let pid: pid_t
        do {
            pid = try SessionSpawn.spawn(
                "/proc/self/exe", arguments: [CommandLine.arguments.first ?? "refresh"], setting: variable,
                actions: &actions)
        } catch {
            for end in toChild + fromChild { close(end) }
            switch error {
            case .unsupported(let cause):
                throw failure("a C library that cannot start a process in a session of its own", cause.code)
            case .notStarted(let cause):
                throw failure("it could not be started", cause.code)
            }
        }
        close(toChild[0])
        close(fromChild[1])
        // The request is small: the pipe takes it whole, whether or not the process reads it yet. A process that
        // ended without reading it makes the write fail: its output says so, or it says nothing.
        input.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count,
                let count = try? systemCall({ write(toChild[1], bytes.baseAddress! + offset, bytes.count - offset) }),
                count > 0
            {
                offset += count
            }
        }
        close(toChild[1])
        var output = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while let count = try? systemCall({ read(fromChild[0], &buffer, buffer.count) }), count > 0 {
            output += buffer[..<count]
        }
        close(fromChild[0])
        var status: Int32 = 0
        _ = try? systemCall { waitpid(pid, &status, 0) }
        return Data(output)
    }

    /// Whether `pipe` succeeded (`result`), with both ends then closed on exec: no other process this app starts
    /// inherits them. (`pipe2`, which does both at once, is declared only for `_GNU_SOURCE`.)
    private static func closedOnExec(_ result: Int32, _ ends: [Int32]) -> Bool {
        guard result == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    private static func failure(_ problem: String, _ code: Int32) -> TokenAuthError {
        TokenAuthError(
            .storageFailed,
            "The process that refreshes the session could not be started: \(problem) (\(String(cString: strerror(code)))).",
            fix: "The tokens were kept; try again.")
    }
}
