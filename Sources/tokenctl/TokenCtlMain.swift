#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TokenAuth
import TokenCtlFastPath

/// `tokenctl`: the plain `token` call on an item whose token is fresh as stored, read and printed here; every other
/// call runs as `tokenctl-full`, installed beside it (``FullCommand``). This executable links only the keyring, the
/// core and the stored format, on FoundationEssentials: no argument parser, no HTTP stack, no full Foundation.
///
/// `tokenctl --version` is answered here too, with the constant `tokenctl-full` prints: it needs no parser, and it
/// works where `tokenctl-full` was not built or installed, which is when someone asks.
@main
enum TokenctlMain {
    static func main() {
        if TokenctlVersion.isRequested(by: CommandLine.arguments.dropFirst()) {
            print(TokenctlVersion.current)
            return
        }
        TokenctlLogging.bootstrap()
        if let call = PlainTokenCall(CommandLine.arguments.dropFirst()) {
            switch call.read(at: systemWallClock()) {
            case .fresh(let token):
                print(token)
                return
            case .failed(let error):
                StandardError.report(error.report)
                exit(ExitStatus.keyring)
            case .needsFullCommand:
                break
            }
        }
        FullCommand.run()
    }
}
