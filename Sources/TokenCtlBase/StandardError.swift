#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TokenAuth

/// tokenctl's messages on stderr, without Foundation's `FileHandle`.
package enum StandardError {
    /// Writes `tokenctl: ` and `message` as one line, through `ServerText.oneLine` as every error of tokenctl's
    /// commands: no escape sequence or control character in a name it quotes reaches the terminal. A stderr that
    /// cannot be written to is left alone: there is nowhere else to say so.
    package static func report(_ message: String) {
        try? writeAll(Array("tokenctl: \(ServerText.oneLine(message))\n".utf8), to: STDERR_FILENO)
    }
}
