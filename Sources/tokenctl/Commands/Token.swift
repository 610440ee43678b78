import ArgumentParser
import TokenAuth
import TokenAuthSignIn
import TokenAuthKeyring

extension TokenCtl {
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Print a valid access token and nothing else, refreshing it first if it expires soon.",
            discussion: """
                For scripts: curl -H "Authorization: Bearer $(tokenctl token --service S --account A)" URL
                Refreshes through the token endpoint and client recorded in the keyring item, under a lock shared \
                with every other process using the item. Exit codes: 3 login required, 4 keyring, 5 transient \
                network or server failure.
                """)

        @OptionGroup var item: ItemOptions
        @OptionGroup var keyringOptions: KeyringOptions

        func run() async throws {
            try await reportingFailures {
                let manager = try await AuthManager.forKeyringItem(
                    service: item.service, account: item.account, keyring: keyringOptions.keyring, identityChecks: IDTokenVerifier.forStoredClient, followsChanges: false)
                print(try await manager.validToken())
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
                let manager = try await AuthManager.forKeyringItem(
                    service: item.service, account: item.account, keyring: keyringOptions.keyring, identityChecks: IDTokenVerifier.forStoredClient, followsChanges: false)
                let auth = try await manager.refresh()
                let summary = CredentialsSummary(
                    service: item.service, account: item.account,
                    credentials: StoredCredentials(auth: auth), now: systemWallClock())
                Terminal.status("Refreshed; the new token \(summary.relativeExpiry).")
            }
        }
    }
}
