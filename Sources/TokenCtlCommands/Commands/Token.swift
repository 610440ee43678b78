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
                with every other process using the item. A token bound to a key (DPoP) is printed too, with a \
                warning on standard error: it is useless without the key's proofs, which `tokenctl request` sends. An item the keyring does not have (or no Secret Service) is \
                looked for in the file store of --insecure-storage. Exit codes: 3 login required, 4 keyring, 5 \
                transient network or server failure.
                """)

        @OptionGroup package var item: ItemOptions
        @OptionGroup package var keyringOptions: KeyringOptions

        package func run() async throws {
            try await reportingFailures {
                let manager = try await item.manager(keyring: keyringOptions.keyring)
                let auth = try await manager.validAuth()
                if auth.isDPoPBound {
                    Terminal.say(
                        "tokenctl: this token is bound to a key (DPoP): a server accepts it only with a proof signed by "
                            + "that key, which `tokenctl request` sends. As a Bearer token it is refused.")
                }
                print(auth.accessToken)
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
