#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A system call that failed, with the `errno` it set.
package struct SystemCallError: Error, Sendable {
    /// The `errno` value, e.g. `ENOENT`.
    package let code: Int32

    package init(code: Int32) {
        self.code = code
    }

    /// The system's words for it, e.g. "Permission denied": what errors show to people.
    package var sentence: String { String(cString: strerror(code)) }

    /// Whether the call would have had to wait (`EAGAIN`, `EWOULDBLOCK`): a descriptor opened `O_NONBLOCK`, or a
    /// lock taken with `LOCK_NB`, that is not ready.
    package var wouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }
}

/// Runs `call` — one system call that returns `-1` and sets `errno` when it fails — again for as long as a signal
/// interrupts it (`EINTR`), and turns any other failure into a thrown ``SystemCallError``: the package's one retry
/// loop, as swift-nio's `syscall(blocking:where:_:)` is NIO's, so that no call site writes its own. A call that would
/// block (``SystemCallError/wouldBlock``) throws too; the caller decides whether that means "wait" or "busy".
///
/// ```swift
/// let descriptor = try systemCall { openat(directory, name, O_RDONLY | O_CLOEXEC) }
/// ```
///
/// Every module that builds on the core reaches it (`package`); `Keyring`, which does not, keeps its own few loops.
///
/// - Important: Never for `close`: on Linux the descriptor is released even when `close` reports `EINTR`, and a
///   second `close` could close a descriptor another thread has just been given. Nor for calls that report their
///   error as their result (`posix_spawn`, the `pthread_` calls).
/// - Returns: What `call` returned; never `-1`.
@discardableResult
package func systemCall<Result: FixedWidthInteger>(_ call: () -> Result) throws(SystemCallError) -> Result {
    while true {
        let result = call()
        guard result == -1 else { return result }
        let code = errno
        guard code == EINTR else { throw SystemCallError(code: code) }
    }
}
