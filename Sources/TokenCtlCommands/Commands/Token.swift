import ArgumentParser
import Keyring
import TokenAuth
import TokenAuthKeyring
import TokenCtlBase

extension TokenCtl {
    package struct Token: AsyncParsableCommand {
        package init() {}

        package static let configuration = CommandConfiguration(
            commandName: CommandLineOptions.tokenCommand,
            abstract: "Print a valid access token and nothing else, refreshing it first if it expires soon.",
            discussion: """
                For scripts:

                  curl -H "Authorization: Bearer $(tokenctl token --service S --account A)" URL

                Refreshes through the token endpoint and client recorded in the keyring item, under a lock shared \
                with every other process using the item. An item the keyring does not have (or no Secret Service) is \
                looked for in the file store of --insecure-storage. Exit codes: 3 login required, 4 keyring, 5 \
                transient network or server failure.
                """)

        @OptionGroup package var item: ItemOptions
        @OptionGroup package var keyringOptions: KeyringOptions

        package func run() async throws {
            try await reportingFailures {
                let manager = try await item.manager(keyring: keyringOptions.keyring)
                print(try await manager.validAuth().accessToken)
            }
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh",
            abstract: "Refresh the stored tokens now, even if they are still valid.",
            discussion: "Exit codes: 3 login required, 4 keyring, 5 transient network or server failure.")

        @OptionGroup var item: ItemOptions
        @OptionGroup var keyringOptions: KeyringOptions

        func run() async throws {
            try await reportingFailures {
                let manager = try await item.manager(keyring: keyringOptions.keyring)
                let auth = try await manager.refresh()
                let summary = CredentialsSummary(
                    service: item.service, account: item.account,
                    credentials: StoredCredentials(auth: auth), now: systemWallClock())
                Terminal.status("Refreshed; the new token \(summary.relativeExpiry).")
            }
        }
    }
}
