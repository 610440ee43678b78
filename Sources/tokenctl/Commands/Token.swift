import ArgumentParser
import Keyring
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
            try await Self.printToken(service: item.service, account: item.account, keyring: keyringOptions.keyring)
        }

        static func printToken(service: String, account: String, keyring: Keyring) async throws {
            try await reportingFailures {
                let manager = try await AuthManager.forKeyringItem(
                    service: service, account: account, keyring: keyring, identityChecks: IDTokenVerifier.forStoredClient,
                    followsChanges: false)
                print(try await manager.validToken())
            }
        }

        /// `token`'s own arguments read without the argument parser, for the plain call scripts make once per request
        /// (`token --service S --account A`, with `--no-prompt` or `--timeout N`): the parser's reflection over the
        /// command types was the largest item of a start-up profile. `nil` for anything else — another spelling
        /// (`--service=S`), a repeated or unknown option, a value that looks like an option, a timeout the parser
        /// would refuse, `--help` — which the parser then reads, so its help, errors and exit codes are unchanged.
        static func plainArguments(_ arguments: ArraySlice<String>) -> (service: String, account: String, keyring: Keyring)? {
            var remaining = arguments
            guard remaining.popFirst() == "token" else { return nil }
            var service: String?, account: String?, timeout: Double?, noPrompt = false
            while let flag = remaining.popFirst() {
                if flag == "--no-prompt" {
                    guard !noPrompt else { return nil }
                    noPrompt = true
                    continue
                }
                guard let value = remaining.popFirst(), !value.hasPrefix("-") else { return nil }
                switch flag {
                case "--service" where service == nil: service = value
                case "--account" where account == nil: account = value
                case "--timeout" where timeout == nil:
                    guard let seconds = Double(value), seconds > 0, seconds <= 86_400 else { return nil }
                    timeout = seconds
                default: return nil
                }
            }
            guard let service, let account else { return nil }
            // As `KeyringOptions.keyring` makes it, with that option's default timeout of 5 s.
            let configuration = Keyring.Configuration(timeout: .seconds(timeout ?? 5), prompting: noPrompt ? .never : .allowed)
            return (service, account, Keyring(configuration: configuration))
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
