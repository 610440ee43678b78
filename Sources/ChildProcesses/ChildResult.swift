import Foundation

/// What a child process left behind: see ``ChildProcess``.
package struct ChildResult: Sendable {
    /// The exit status; -1 when a signal ended the child (``signal`` says which), so that a killed child is never
    /// read as one that exited with a status a caller expects.
    package let status: Int32
    /// The signal that ended the child, or `nil` when it exited.
    package let signal: Int32?
    /// Standard output, as written.
    package let stdoutData: Data
    /// Standard error, as written.
    package let stderrData: Data
    /// From just before the spawn to the exit, in seconds.
    package let seconds: Double

    /// Standard output decoded as UTF-8 (an invalid sequence becomes U+FFFD).
    package var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    /// Standard error decoded as UTF-8 (an invalid sequence becomes U+FFFD).
    package var stderr: String { String(decoding: stderrData, as: UTF8.self) }
}
