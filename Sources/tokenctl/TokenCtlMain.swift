#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TokenAuth
import TokenCtlBase

/// `tokenctl`: the plain `token` call on an item whose token is fresh as stored, read and printed here; every other
/// call runs as `tokenctl-full`, installed beside it (``FullCommand``). This executable links only the keyring, the
/// core (with the stored format), the file store and the base the two executables share, on FoundationEssentials:
/// no argument parser, no HTTP stack, no full Foundation.
///
/// `tokenctl --version` is answered here too, with the constant `tokenctl-full` prints: it needs no parser, and it
/// works where `tokenctl-full` was not built or installed, which is when someone asks.
@main
enum TokenCtlMain {
    static func main() {
        StandardStreams.occupyClosed()
        if TokenCtlVersion.isRequested(by: CommandLine.arguments.dropFirst()) {
            StandardStreams.printLine(TokenCtlVersion.current)
            return
        }
        TokenCtlLogging.bootstrap()
        if let call = PlainTokenCall(CommandLine.arguments.dropFirst()) {
            switch call.read(at: systemWallClock()) {
            case .fresh(let token):
                StandardStreams.printLine(token)
                return
            case .failed(let error):
                StandardError.report(error.report)
                exit(ExitStatus(error).rawValue)
            case .needsFullCommand:
                break
            }
        }
        FullCommand.run()
    }
}
