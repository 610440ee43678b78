import Foundation

/// posix_spawn(3) of a child with its standard streams on the given descriptors, its signal mask cleared and every
/// other descriptor closed, in a process group of its own: what `Process.run()` does, without it.
///
/// swift-corelibs-foundation's `Process.run()` crashes now and then (`__memcpy_avx512_unaligned_erms`, a bad pointer):
/// to close the child's descriptors it lists /proc/self/fd and copies each `dirent`'s whole 256-byte `d_name`, which
/// reads past the end of readdir's buffer when the last entry ends near a page's end (fixed upstream in
/// swift-corelibs-foundation #5472, not in this toolchain). Full test runs met it once in a few.
enum Spawn {
    /// Starts `executable` and returns its pid.
    ///
    /// - Parameters:
    ///   - streams: The descriptors that become the child's 0, 1 and 2.
    ///   - environment: The child's whole environment.
    /// - Throws: `POSIXError` when posix_spawn fails (ENOENT for a missing executable, EACCES, …).
    static func start(
        _ executable: String, _ arguments: [String], environment: [String: String], streams: (Int32, Int32, Int32)
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (from, to) in [(streams.0, STDIN_FILENO), (streams.1, STDOUT_FILENO), (streams.2, STDERR_FILENO)] {
            posix_spawn_file_actions_adddup2(&actions, from, to)
        }
        closeTheRest(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        // A child spawned from a libdispatch thread would otherwise inherit its mask, which blocks SIGTERM.
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
        return pid
    }

    /// Closes every descriptor from 3 up in the child: glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and
    /// later), looked up at run time; without it, each descriptor open now below the limit.
    private static func closeTheRest(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        for descriptor in 3..<min(getdtablesize(), 65_536) where fcntl(descriptor, F_GETFD) != -1 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// A pipe whose two ends close on exec: (read end, write end). (pipe2(2) is not in Swift's Glibc module: the flag
    /// is set after; a spawn between the two would close them anyway, every spawn here closing all from 3 up.)
    static func pipe() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Waits for `pid` to end, blocking this thread: its exit status, or -1 and the signal that ended it.
    static func wait(_ pid: pid_t) -> (status: Int32, signal: Int32?) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return (-1, nil) }
        }
        let signal = status & 0x7F
        return signal == 0 ? ((status >> 8) & 0xFF, nil) : (-1, signal)
    }
}
