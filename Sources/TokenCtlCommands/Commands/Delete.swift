import ArgumentParser
import TokenAuth
import TokenAuthKeyring

extension TokenCtl {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete the stored tokens of an account (the keyring item only; nothing is revoked).",
            discussion: "Exit code 3 when nothing was stored.")

        @OptionGroup var item: ItemOptions
        @OptionGroup var keyringOptions: KeyringOptions

        func run() async throws {
            try await reportingFailures {
                let store = KeyringAuthStore(service: item.service, account: item.account, keyring: keyringOptions.keyring)
                guard try await store.delete() else { throw Failure.noCredentials(item) }
            }
        }
    }
}
