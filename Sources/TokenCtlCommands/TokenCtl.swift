import ArgumentParser
import Foundation
import TokenCtlBase

/// How `tokenctl-full` starts.
package enum Main {
    /// Runs the command line, in a child of its own for the commands that may refresh (``DetachedRefresh``); logs as
    /// ``TokenCtlLogging`` sets them up.
    @MainActor
    package static func run() async {
        StandardStreams.occupyClosed()
        DetachedRefresh.runDetachedIfRefreshing(CommandLine.arguments)
        TokenCtlLogging.bootstrap()
        // Returns only when the command succeeded: the argument parser exits with the status of a failure itself.
        await TokenCtl.main()
        StandardStreams.finishOutput()
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
              5   transient network or server failure (the tokens were kept), or no
                  answer in time
              6   `tokenctl request`: the server answered with a status other than 2xx
                  (the body is printed)
              64  usage error, or an endpoint or issuer that cannot be used as configured
              65  bad input: malformed standard input, or a stored item that cannot be
                  read
              74  standard output could not be written (a full disk, a closed stdout)

            Errors are one sentence each, naming the cause in words. Set \
            TOKENCTL_LOG_LEVEL=debug to see the library's log on standard error, and after \
            each error the codes it came from (a URLError's number, GLib's domain and code).
            """,
        version: TokenCtlVersion.current,
        subcommands: [
            Login.self, Request.self, Show.self, Status.self, Switch.self, Logout.self, Token.self, Refresh.self, Import.self,
            List.self,
            Delete.self, Doctor.self, GitCredentialCommand.self,
        ]
    )
}
