import ArgumentParser
import TokenAuth
import TokenAuthKeyring
import TokenCtlBase

extension TokenCtl {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete the stored tokens of an account (the item only; nothing is revoked).",
            discussion: """
                Deletes the keyring item; when the keyring has none (or no Secret Service is reachable), the file of \
                --insecure-storage. Exit code 3 when nothing was stored.
                """)

        @OptionGroup var item: ItemOptions
        @OptionGroup var keyringOptions: KeyringOptions

        func run() async throws {
            try await reportingFailures {
                let deleted = try await item.lookup(keyring: keyringOptions.keyring).first(
                    inKeyring: { try await $0.delete() ? ItemLocation.keyring : nil },
                    inFile: { store in try await store.delete() ? ItemLocation.file(path: store.path) : nil })
                guard let deleted else { throw Failure.noCredentials(item) }
                Terminal.status("Deleted the tokens from \(deleted.named).")
            }
        }
    }
}
