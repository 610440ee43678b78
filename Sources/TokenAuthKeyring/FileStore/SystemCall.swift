#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A system call of ``StoreDirectory`` that failed, with the `errno` it set.
struct SystemCallError: Error, Sendable {
    /// The `errno` value, e.g. `ENOENT`.
    let code: Int32

    /// The system's words for it, e.g. "Permission denied": what the store's errors show.
    var sentence: String { String(cString: strerror(code)) }
}

/// Runs `call` — one system call that returns `-1` and sets `errno` when it fails — again for as long as a signal
/// interrupts it (`EINTR`), and turns any other failure into a thrown ``SystemCallError``: the file store's one retry
/// loop, as swift-nio's `syscall(blocking:where:_:)` is NIO's, so that no call site writes its own.
///
/// ```swift
/// let descriptor = try systemCall { openat(directory, name, O_RDONLY | O_CLOEXEC) }
/// ```
///
/// - Important: Never for `close`: on Linux the descriptor is released even when `close` reports `EINTR`, and a
///   second `close` could close a descriptor another thread has just been given.
/// - Returns: What `call` returned; never `-1`.
@discardableResult
func systemCall<Result: FixedWidthInteger>(_ call: () -> Result) throws(SystemCallError) -> Result {
    while true {
        let result = call()
        guard result == -1 else { return result }
        let code = errno
        guard code == EINTR else { throw SystemCallError(code: code) }
    }
}

/// `O_PATH`: a descriptor that only names a directory, to walk through it (`openat`, `fstat`) with no permission to
/// read it. Glibc's module hides the constant behind `_GNU_SOURCE`; the kernel's value is the same on every
/// architecture Swift builds for on Linux (`010000000`; only Alpha, PA-RISC and SPARC differ).
let openPathOnly: Int32 = 0o10000000
