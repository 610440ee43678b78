import ArgumentParser
import TokenAuth
import TokenAuthKeyring

extension TokenCtl {
    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "logout",
            abstract: "Sign out: revoke the tokens at the server (when a revocation endpoint is recorded) and delete the item.",
            discussion: """
                Revokes the refresh token, then the access token, at the RFC 7009 revocation endpoint recorded \
                with `tokenctl login --revocation-url`. The item is deleted even when revocation fails; a warning \
                on standard error then says the tokens stay valid at the server until they expire. \
                Exit codes: 0 signed out, 3 nothing was stored, 4 keyring, 65 the item cannot be read (delete it \
                with `tokenctl delete`).
                """)

        @OptionGroup var item: ItemOptions
        @OptionGroup var keyringOptions: KeyringOptions

        func run() async throws {
            try await reportingFailures {
                let outcome = try await SignOut.perform(
                    service: item.service, account: item.account, keyring: keyringOptions.keyring)
                guard outcome.deleted else { throw Failure.noCredentials(item) }
                switch outcome.revocation {
                case .revoked:
                    Terminal.status("Revoked the tokens at the server and deleted them from the keyring.")
                case .notConfigured:
                    Terminal.status("Deleted the tokens from the keyring (no revocation endpoint is recorded).")
                case .failed(let error):
                    Terminal.error("Deleted the tokens from the keyring, but could not revoke them: \(error)")
                }
            }
        }
    }
}
