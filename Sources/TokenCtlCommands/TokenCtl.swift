import ArgumentParser
import Foundation
import Logging

/// How both executables start: `tokenctl` with ``HandOffToSignIn``, `tokenctl-signin` with the sign-in library.
package enum Main {
    /// Runs the command line with `signIn` as ``TokenCtl/signIn``.
    ///
    /// Library logs stay quiet unless TOKENCTL_LOG_LEVEL asks for them (e.g. `debug`): errors are reported
    /// as one sentence each, and the logs of the refresher would repeat them. Logs never contain tokens.
    @MainActor
    package static func run(signIn: any SignInFeatures) async {
        // getenv, not ProcessInfo's environment: that copies every variable into a dictionary on each start.
        let level = getenv("TOKENCTL_LOG_LEVEL").flatMap { Logger.Level(rawValue: String(cString: $0)) }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level ?? .critical
            return handler
        }
        // The plain `token` call, the one scripts make per request, skips the parser (see `Token.plainArguments`),
        // and a token that is fresh as stored is printed from this thread, before any task starts.
        let plain = TokenCtl.Token.plainArguments(CommandLine.arguments.dropFirst())
        if let plain, TokenCtl.Token.printFreshToken(service: plain.service, account: plain.account, keyring: plain.keyring) {
            return
        }
        await TokenCtl.$signIn.withValue(signIn) {
            guard let plain else { return await TokenCtl.main() }
            do {
                try await TokenCtl.Token.printToken(service: plain.service, account: plain.account, keyring: plain.keyring)
            } catch {
                TokenCtl.exit(withError: error)
            }
        }
    }
}

package struct TokenCtl: AsyncParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "tokenctl",
        abstract: "Manage OAuth tokens stored in the freedesktop Secret Service (gnome-keyring, KeePassXC, KWallet).",
        discussion: """
            Each (service, account) pair is one keyring item with the attributes `service` and `account`; \
            `secret-tool lookup service S account A` prints the same item. Tokens are never printed, except by \
            `tokenctl token`, and enter only through standard input. Progress messages go to standard error, and only \
            when it is a terminal; standard output carries data only.

            Where no Secret Service can run, `login` and `import` store in an unencrypted file instead, only when \
            asked with --insecure-storage (with a warning each time); every other command looks in the keyring \
            first, then in that file, and `show` and `status` say where an item lives.

            Exit codes:
              0   success
              3   no credentials stored, a login is required, or the sign-in was declined
              4   keyring unavailable, locked, timed out or misconfigured (or the file of
                  --insecure-storage cannot be used)
              5   transient network or server failure (the tokens were kept), or no answer in time
              6   `tokenctl request`: the server answered with a status other than 2xx (the body is printed)
              64  usage error, or an endpoint or issuer that cannot be used as configured
              65  bad input: malformed standard input, or a stored item that cannot be read

            Set TOKENCTL_LOG_LEVEL=debug to see the library's log on standard error.
            """,
        subcommands: [
            Login.self, Request.self, Show.self, Status.self, Switch.self, Logout.self, Token.self, Refresh.self, Import.self,
            List.self,
            Delete.self, Doctor.self,
        ]
    )
}
