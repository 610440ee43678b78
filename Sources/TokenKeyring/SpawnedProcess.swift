#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import TokenAuth

/// This program started again as a process of its own: in a new session (`setsid`), so that no signal to the app, its
/// process group or its terminal reaches it, with every signal at its default and none blocked — and, in a Flatpak
/// sandbox, in a new instance of the app (``FlatpakSpawn``), since every process of the app's own instance ends with
/// its main process.
enum SpawnedProcess {
    /// Runs this program with `variable=1` added to its environment and only the program's name as arguments; writes
    /// `input` to its standard input, and returns its standard output once it ended. Blocks: call it on a thread of
    /// its own, whose SIGPIPE it blocks for good (a process that ended before reading makes the write fail instead of
    /// ending the app; the pending signal goes with the thread).
    ///
    /// In a Flatpak sandbox it asks the portal first. `flatpak-spawn` that could not be started, or that ended with
    /// status 1 and printed nothing, could not reach the portal (it says why on standard error) and so started
    /// nothing: then the process starts in the app's instance, as outside a sandbox. Running both would be safe all
    /// the same: each refreshes under the item's lock, and the second finds what the first stored.
    static func run(variable: String, input: Data) throws -> Data {
        if let flatpak = FlatpakSpawn.inThisSandbox(), let executable = FlatpakSpawn.executablePath(),
            let (output, status) = try? run(
                flatpak.program, flatpak.arguments(running: executable, [], setting: variable), variable: variable,
                input: input),
            !(output.isEmpty && status & 0x7f == 0 && (status >> 8) & 0xff == 1)  // WIFEXITED, WEXITSTATUS
        {
            return output
        }
        return try run("/proc/self/exe", [CommandLine.arguments.first ?? "refresh"], variable: variable, input: input)
            .output
    }

    /// Runs `path` with `arguments`, hands it `input`, and returns its output and wait status once it ended.
    private static func run(
        _ path: String, _ arguments: [String], variable: String, input: Data
    ) throws -> (output: Data, status: Int32) {
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
            pid = try SessionSpawn.spawn(path, arguments: arguments, setting: variable, actions: &actions)
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
        return (Data(output), status)
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
