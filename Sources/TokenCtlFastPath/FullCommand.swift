#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `tokenctl-full`, the executable installed beside `tokenctl` that has every command: `tokenctl` reads the plain
/// `token` call itself (``PlainTokenCall``) and runs everything else as `tokenctl-full` — the same arguments,
/// environment, standard input and output, in the same process (`execv`), so the caller sees one command and one
/// exit status. `tokenctl` itself then links no argument parser, no HTTP stack and no full Foundation, only what
/// that read needs: it starts about as fast as `secret-tool lookup`.
package enum FullCommand {
    /// The executable with every command, beside `tokenctl`.
    package static let executableName = "tokenctl-full"

    /// Replaces this process with `tokenctl-full`, given this process's arguments; when it cannot be run, says so on
    /// stderr and exits with the usage status.
    package static func run() -> Never {
        let path = ownDirectory() + "/" + executableName
        fflush(nil)  // every stream: nothing written so far may be lost by execv
        let arguments = [path] + CommandLine.arguments.dropFirst()
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv(path, &argv)
        let reason = String(cString: strerror(errno))
        StandardError.report(
            "Every command but a plain `tokenctl token` is run by \(executableName), which should be installed beside "
                + "tokenctl but cannot be run (\(path): \(reason)). Install both executables from the same build.")
        exit(ExitStatus.usage)
    }

    /// The directory of this executable: `/proc/self/exe`'s target, else the directory of `argv[0]`.
    private static func ownDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let own = length > 0
            ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        guard let slash = own.lastIndex(of: "/") else { return "." }
        return own[..<slash].isEmpty ? "/" : String(own[..<slash])
    }
}
