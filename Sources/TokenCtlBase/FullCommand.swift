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
    ///
    /// `tokenctl-full` is looked for only beside this executable as the kernel names it (`/proc/self/exe`). Without
    /// `/proc` (a chroot or container that does not mount it) nothing else says where that is: `argv[0]` is
    /// whatever the caller chose, and a relative one, or none, would run a `tokenctl-full` from the working
    /// directory, which anyone may have put there. Nor are there arguments to pass on: the Swift runtime reads them
    /// from `/proc/self/cmdline`, so `CommandLine.arguments` is empty. So then `tokenctl` says so and runs nothing.
    package static func run() -> Never {
        guard let directory = ownDirectory() else {
            let reason = String(cString: strerror(errno))
            StandardError.report(
                "tokenctl needs /proc, to read its arguments and to find \(executableName) beside its own executable, "
                    + "and cannot read /proc/self/exe (\(reason)), so it ran nothing. Mount /proc (e.g. `mount -t "
                    + "proc proc /proc`, or give the container or chroot one), then run the command again.")
            exit(ExitStatus.usage.rawValue)
        }
        let path = directory + "/" + executableName
        fflush(nil)  // every stream: nothing written so far may be lost by execv
        let arguments = [path] + CommandLine.arguments.dropFirst()
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv(path, &argv)
        let reason = String(cString: strerror(errno))
        // `swift run tokenctl` builds tokenctl alone: the one way to meet this in a checkout, --help included.
        StandardError.report(
            "Every command but a plain `tokenctl token` (and `--version`), --help included, is run by "
                + "\(executableName), which should be installed beside tokenctl but cannot be run (\(path): \(reason)). "
                + "In a checkout, build it too: `swift build --product \(executableName)` (`swift run tokenctl` builds "
                + "tokenctl alone); elsewhere, install both executables from the same build.")
        exit(ExitStatus.usage.rawValue)
    }

    /// The directory of this executable, from `/proc/self/exe`'s target; `nil` (with `errno` set) when that cannot
    /// be read.
    private static func ownDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let own = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // The kernel's name is absolute; anything else is no directory to trust.
        guard own.hasPrefix("/"), let slash = own.lastIndex(of: "/") else {
            errno = ENOENT
            return nil
        }
        return own[..<slash].isEmpty ? "/" : String(own[..<slash])
    }
}
