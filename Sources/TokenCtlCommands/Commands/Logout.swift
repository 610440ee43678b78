import ArgumentParser
import TokenAuth
import TokenAuthKeyring
import TokenAuthURLSession
import TokenCtlBase

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
                with `tokenctl delete`). An item the keyring does not have (or no Secret Service) is looked for in \
                the file store of --insecure-storage, and its file removed.
                """)

        @OptionGroup var item: ItemOptions
        @OptionGroup var keyringOptions: KeyringOptions

        func run() async throws {
            try await reportingFailures {
                let transport = URLSessionHTTPTransport(maximumResponseBodySize: 64 * 1024, timeout: .seconds(10))
                let signedOut = try await item.lookup(keyring: keyringOptions.keyring).first(inKeyring: { store in
                    let outcome = try await SignOut.perform(store: store, transport: transport)
                    return outcome.deleted ? (outcome, ItemLocation.keyring) : nil
                }, inFile: { store in
                    let outcome = try await SignOut.perform(store: store, transport: transport)
                    return outcome.deleted ? (outcome, ItemLocation.file(path: store.path)) : nil
                })
                guard let (outcome, location) = signedOut else { throw Failure.noCredentials(item) }
                switch outcome.revocation {
                case .revoked:
                    Terminal.status("Revoked the tokens at the server and deleted them from \(location.named).")
                case .notConfigured:
                    Terminal.status("Deleted the tokens from \(location.named) (no revocation endpoint is recorded).")
                case .failed(let error):
                    // tokenctl's own sentence, with the server's words; the error's fix says the same for apps
                    // (`SignOut` gives it one that holds after a sign-out).
                    let said = ServerText.said(error.oauthError?.errorDescription)
                    Terminal.error(
                        "Deleted the tokens from \(location.named), but the server did not revoke them: \(error.reason)"
                            + "\(said) They stay valid at the server until they expire.")
                }
            }
        }
    }
}
