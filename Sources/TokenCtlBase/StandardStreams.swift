#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#endif
import TokenAuth

/// What both executables do about their standard streams, first thing at start and last thing on success.
///
/// A script may run `tokenctl token` with a standard stream closed (`>&-`, `<&-`, a service manager's unit). The
/// lowest free descriptor is what the next `open`, `socket` or `eventfd` gets, so GLib's event descriptor or the
/// D-Bus socket would become descriptor 1, and the token would be written into it: to the bus, if not refused by
/// luck. So, as OpenSSH's `sanitise_stdfd` does, a closed one of descriptors 0 to 2 is first given `/dev/null`;
/// opened so that using it fails (standard input for writing only, the others for reading only), a read or write
/// through it reports `EBADF` instead of vanishing. Not close-on-exec: `tokenctl-full`, run in its place, finds them
/// the same.
///
/// And a token or a listing that could not be written (a full disk, `>/dev/full`, a closed standard output) must
/// not end as a success: ``finishOutput()`` says so and exits with ``ExitStatus/outputFailed``, as GNU's tools do
/// after a write error (gnulib's `close_stdout`).
package enum StandardStreams {
    /// Gives each closed descriptor among 0, 1 and 2 `/dev/null`, opened so that using it fails. Call it before
    /// anything opens a file or a socket.
    package static func occupyClosed() {
        for descriptor in STDIN_FILENO...STDERR_FILENO where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            // The lowest free descriptor is this one: every lower one is open, or was just given /dev/null.
            let opened = open("/dev/null", descriptor == STDIN_FILENO ? O_WRONLY : O_RDONLY)
            if opened > descriptor {
                _ = dup2(opened, descriptor)
                _ = close(opened)
            }
        }
    }

    /// Whether standard input can be read: `false` when it was closed (see ``occupyClosed()``) or is open for
    /// writing only.
    package static var isStandardInputReadable: Bool {
        let flags = fcntl(STDIN_FILENO, F_GETFL)
        return flags != -1 && flags & O_ACCMODE != O_WRONLY
    }

    /// Writes `line` and a line break to standard output, unbuffered; on failure, says so and exits with
    /// ``ExitStatus/outputFailed``. For `tokenctl token`'s one line, which is the whole point of the call.
    package static func printLine(_ line: String) {
        do throws(SystemCallError) {
            try writeAll(Array((line + "\n").utf8), to: STDOUT_FILENO)
        } catch {
            failOutput(error.sentence)
        }
    }

    /// Writes `bytes` to standard output through the same buffer as `print`, which ``finishOutput()`` checks.
    package static func write(_ bytes: UnsafeRawBufferPointer) {
        _ = fwrite(bytes.baseAddress, 1, bytes.count, output)
    }

    /// C's `stdout`, as `print` writes to it. libc sets the pointer before `main` and nothing here assigns it, and
    /// every stdio call locks the stream it is given, so reading it from any thread races with nothing: the reason
    /// for the `@preconcurrency` import, which lets Swift read the C global at all.
    private static var output: UnsafeMutablePointer<FILE> { stdout }

    /// Flushes what `print` buffered for standard output; when any of it could not be written, says so on standard
    /// error and exits with ``ExitStatus/outputFailed``. Call it where a command has succeeded, before exiting.
    package static func finishOutput() {
        errno = 0
        let flushed = fflush(output) == 0
        let failed = !flushed || ferror(output) != 0
        guard failed else { return }
        // The errno of an earlier failed write is gone by now; a failing flush sets its own.
        failOutput(!flushed && errno != 0 ? String(cString: strerror(errno)) : nil)
    }

    private static func failOutput(_ reason: String?) -> Never {
        StandardError.report(
            "Standard output could not be written\(reason.map { " (\($0))" } ?? ""), so what this command printed "
                + "is missing or incomplete. Send it where it can be written: a file on a disk with room, or a pipe "
                + "that is read.")
        exit(ExitStatus.outputFailed.rawValue)
    }
}
