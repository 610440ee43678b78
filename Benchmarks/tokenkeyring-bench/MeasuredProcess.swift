import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TokenAuth

/// A child process run to its exit through the process meter (`Benchmarks/process-meter/meter.c`), with what the
/// kernel accounted for it: wall time, CPU time and peak memory.
///
/// The meter forks the command itself, so that the peak resident set is the command's own: a process forked
/// from the benchmark would report at least the benchmark's size. Standard output is collected (at most what a
/// pipe buffers, 64 KiB, plenty for a token or a bundle).
struct MeasuredProcess: Sendable {
    let status: Int32
    let stdout: Data
    /// From just before the fork to the reaping, in milliseconds.
    let wallMilliseconds: Double
    /// User plus system CPU time of the command, in milliseconds.
    let cpuMilliseconds: Double
    /// The command's peak resident set (`ru_maxrss`), in MiB.
    let peakMebibytes: Double

    /// Runs `command` through `meter` and waits for it, blocking the calling thread: call it on a thread of your
    /// own, never on Swift's cooperative pool.
    static func runBlocking(meter: String, _ command: [String]) throws -> MeasuredProcess {
        var output: [Int32] = [0, 0]
        var report: [Int32] = [0, 0]
        guard pipe(&output) == 0 else { throw BenchFailure("pipe failed: errno \(errno)") }
        defer { close(output[0]) }
        guard pipe(&report) == 0 else {
            close(output[1])
            throw BenchFailure("pipe failed: errno \(errno)")
        }
        defer { close(report[0]) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, report[1], 2)
        for end in output + report { posix_spawn_file_actions_addclose(&actions, end) }

        let argv: [UnsafeMutablePointer<CChar>?] = ([meter] + command).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, meter, &actions, nil, argv, environ)
        close(output[1])
        close(report[1])
        guard spawned == 0 else { throw BenchFailure("could not start \(meter): error \(spawned)") }

        let stdout = readAll(output[0])
        let line = String(decoding: readAll(report[0]), as: UTF8.self)
        var status: Int32 = 0
        do throws(SystemCallError) {
            try systemCall { waitpid(pid, &status, 0) }
        } catch {
            throw BenchFailure("waitpid failed: \(error.sentence)")
        }
        let fields = line.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard status == 0, fields.count == 4 else {
            throw BenchFailure("the process meter failed (status \(status)): \(line)")
        }
        return MeasuredProcess(
            status: Int32(fields[3]), stdout: stdout, wallMilliseconds: fields[0] / 1e6, cpuMilliseconds: fields[1] / 1e6,
            peakMebibytes: fields[2] / 1024)
    }

    /// What `descriptor` holds to its end; nothing when a read fails (the caller then finds no figures to read).
    private static func readAll(_ descriptor: Int32) -> Data {
        Data((try? readToEnd(descriptor, limit: .max)) ?? [])
    }
}
