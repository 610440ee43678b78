#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TokenAuth

/// tokenctl's messages on stderr, without Foundation's `FileHandle`.
package enum StandardError {
    /// Writes `tokenctl: ` and `message` as one line, through `ServerText.printable` as every message of tokenctl's
    /// commands: no escape sequence or control character in a name it quotes reaches the terminal.
    package static func report(_ message: String) {
        var line = "tokenctl: \(ServerText.printable(message))\n"
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
