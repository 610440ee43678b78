import ArgumentParser
import Keyring
import TokenAuth
import TokenAuthKeyring

extension TokenCtl {
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Print a valid access token and nothing else, refreshing it first if it expires soon.",
            discussion: """
                For scripts: curl -H "Authorization: Bearer $(tokenctl token --service S --account A)" URL
                Refreshes through the token endpoint and client recorded in the keyring item, under a lock shared \
                with every other process using the item. An item the keyring does not have (or no Secret Service) is \
                looked for in the file store of --insecure-storage. Exit codes: 3 login required, 4 keyring, 5 \
                transient network or server failure.
                """)

        @OptionGroup var item: ItemOptions
        @OptionGroup var keyringOptions: KeyringOptions

        func run() async throws {
            try await Self.printToken(service: item.service, account: item.account, keyring: keyringOptions.keyring)
        }

        /// Prints the stored access token when it is fresh as stored, read on this thread (no task, no refresh lock):
        /// `true` when printed or when the read failed (then reported, and the process exits); `false` when the
        /// manager is needed (``printToken(service:account:keyring:)``). Call it before any task starts.
        ///
        /// An item the keyring does not have, or a keyring without a Secret Service, is looked for in the file store;
        /// anything but a fresh token there is left to the manager, which reports it.
        static func printFreshToken(service: String, account: String, keyring: Keyring) -> Bool {
            let store = KeyringAuthStore(service: service, account: account, keyring: keyring)
            let token: String?
            do {
                switch try store.freshTokenLookupBlocking(at: systemWallClock()) {
                case .fresh(let fresh): token = fresh
                case .needsManager: return false
                case .absent: token = freshFileToken(service: service, account: account)
                }
            } catch let error as KeyringError where error.meansNoKeyring {
                token = freshFileToken(service: service, account: account)
            } catch {
                TokenCtl.exit(withError: reported(error))
            }
            guard let token else { return false }
            print(token)
            return true
        }

        /// The file store's token when it is fresh as stored; `nil` for anything else, the manager's to report.
        private static func freshFileToken(service: String, account: String) -> String? {
            let store = FileAuthStore(service: service, account: account)
            return (try? store.freshTokenBlocking(at: systemWallClock())) ?? nil
        }

        static func printToken(service: String, account: String, keyring: Keyring) async throws {
            try await reportingFailures {
                let manager = try await ItemOptions(service: service, account: account).manager(keyring: keyring)
                let auth = try await manager.validAuth()
                try TokenCtl.signIn.willServe(auth)
                print(auth.accessToken)
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
