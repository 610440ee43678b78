#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts a program in a new session (`setsid`), with every signal at its default and none blocked, and the caller's
/// environment with one variable set: how `tokenctl` starts its refreshing child and an app its refreshing process,
/// whose grant nothing sent to the caller, its process group or its terminal may reach.
package enum SessionSpawn {
    /// Why the program was not started.
    package enum Failure: Error, Sendable {
        /// The C library cannot start a process in a session of its own (it refused the attributes).
        case unsupported(SystemCallError)
        /// `posix_spawn` failed.
        case notStarted(SystemCallError)
    }

    /// `POSIX_SPAWN_SETSID` (0x80 in glibc since 2.26, and in musl), which their headers declare only for
    /// `_GNU_SOURCE`, and so Swift's C module does not: the child calls `setsid()` before it runs, so that it starts in
    /// a session and process group of its own, never in the caller's foreground group. (A `setsid()` of the child itself
    /// fails with EPERM once `POSIX_SPAWN_SETPGROUP` has made it a group leader.)
    private static let spawnNewSession: Int32 = 0x80

    /// Starts `path` with `arguments` (the program's name first), this process's environment with `variable=1` in
    /// place of any value it had, and `actions` (such as pipes made its standard input and output).
    /// - Returns: the child's PID.
    package static func spawn(
        _ path: String, arguments: [String], setting variable: String,
        actions: UnsafePointer<posix_spawn_file_actions_t>? = nil
    ) throws(Failure) -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        let flagged = posix_spawnattr_setflags(
            &attributes, Int16(spawnNewSession | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        // A C library that does not know POSIX_SPAWN_SETSID refuses the whole set: no child without it.
        guard flagged == 0 else { throw .unsupported(SystemCallError(code: flagged)) }

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var environment: [UnsafeMutablePointer<CChar>?] = []
        var entry = environ
        while let text = entry.pointee {
            if !String(cString: text).hasPrefix(variable + "=") { environment.append(strdup(text)) }
            entry += 1
        }
        environment.append(strdup("\(variable)=1"))
        environment.append(nil)
        defer { for pointer in argv + environment { free(pointer) } }

        var pid = pid_t()
        let spawned = posix_spawn(&pid, path, actions, &attributes, argv, environment)
        guard spawned == 0 else { throw .notStarted(SystemCallError(code: spawned)) }
        return pid
    }
}
