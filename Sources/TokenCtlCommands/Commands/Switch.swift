import ArgumentParser
import Foundation
import TokenAuthFileStore
import TokenAuthKeyring
import TokenCtlBase

extension TokenCtl {
    struct Switch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "switch",
            abstract: "Choose the account of a service that commands use when --account is left out.",
            discussion: """
                The account must be stored (see `tokenctl status --service S`). The choice is kept in \
                $XDG_CONFIG_HOME/tokenctl/default-accounts.json (no secret is in it). Exit code 3 when the account \
                is not stored.
                """)

        @Option(help: "The service whose default account to choose.")
        var service: String

        @Option(help: "The account to use by default.")
        var account: String

        @OptionGroup var keyringOptions: KeyringOptions

        func run() async throws {
            try await reportingFailures {
                let (inKeyring, inFiles) = try await StoreLookup.accounts(
                    inKeyring: {
                        try await KeyringAuthStore.accounts(of: service, keyring: keyringOptions.keyring)
                            .map { $0.attributes["account"] ?? "" }
                    },
                    inFiles: { try FileAuthStore.accounts(of: service) }, name: { $0 })
                guard (inKeyring + inFiles).contains(account) else {
                    throw Failure(
                        message: "No account \"\(account)\" is stored for service \"\(service)\"; "
                            + "`tokenctl status --service \(service)` lists those that are.",
                        status: .loginRequired)
                }
                try DefaultAccounts.set(account, for: service)
                Terminal.status("Commands for \"\(service)\" now use account \"\(account)\" when --account is left out.")
            }
        }
    }
}
