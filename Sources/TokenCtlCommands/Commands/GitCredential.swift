import ArgumentParser
import Foundation
import TokenAuth
import TokenAuthGit
import TokenCtlBase

extension TokenCtl {
    /// `tokenctl git-credential`: git's credential helper over the item's session (TokenAuthGit).
    struct GitCredentialCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "git-credential",
            abstract: "A git credential helper: hand git the item's access token, refreshed once for every git process.",
            discussion: """
                Configure it per URL, after an empty entry that clears helpers configured before it:

                  git config --global credential.https://HOST.helper ""
                  git config --global --add credential.https://HOST.helper \\
                    '!tokenctl git-credential --service S --account A'

                get answers the username (oauth2, or --username) and the access token as the \
                password, refreshed first when it is near expiry, under the item's lock: parallel \
                gits refresh once. It also gives password_expiry_utc, never the refresh token. It \
                answers only for the protocol and host the item was signed in at (its issuer or \
                token endpoint), or --git-host: another host gets nothing. Where a sign-in is \
                needed it answers nothing, and says on stderr what to run. store is ignored: \
                another helper's password never replaces the session. erase, which git sends after \
                the server refused a password, refreshes the session when that password is its \
                access token and ignores any other; the item is never deleted. With --bearer, a \
                git that offers capability[]=authtype (2.46 and later) gets authtype=Bearer.
                """)

        @OptionGroup var item: ItemOptions
        @OptionGroup var keyringOptions: KeyringOptions

        @Option(help: "The username to answer (default: oauth2; some forges want another).")
        var username = "oauth2"

        @Option(help: "The URL whose protocol and host get the token (default: the item's issuer or token endpoint).")
        var gitHost: String?

        @Flag(help: "Answer authtype=Bearer to a git that can take it (capability[]=authtype, git 2.46 and later).")
        var bearer = false

        @Argument(help: "What git asks: get, store or erase.")
        var operation: String

        func validate() throws {
            guard GitCredentialHelper.Operation(rawValue: operation) != nil else {
                throw ValidationError("The operation is get, store or erase (git gives it).")
            }
            if let gitHost, URL(string: gitHost).flatMap(GitHost.init(url:)) == nil {
                throw ValidationError("--git-host takes a URL with a scheme and a host, e.g. https://gitlab.example.com.")
            }
        }

        func run() async throws {
            // git writes the request whatever the operation; reading it all lets git's write finish.
            let input = try Terminal.readStandardInput()
            guard let operation = GitCredentialHelper.Operation(rawValue: operation), operation != .store else { return }
            try await reportingFailures {
                let request = try Self.parse(input)
                guard let (credentials, _) = try await item.locateCredentials(keyring: keyringOptions.keyring) else {
                    throw Failure.noCredentials(item)
                }
                let helper = GitCredentialHelper(
                    manager: try await item.manager(keyring: keyringOptions.keyring),
                    host: try host(of: credentials), username: username, offersBearer: bearer)
                switch operation {
                case .get:
                    guard let answer = try await helper.get(request) else { return }
                    print(try Self.formatted(answer), terminator: "")
                case .erase:
                    try await helper.erase(request)
                case .store:
                    return
                }
            }
        }

        /// The protocol and host the token goes to: --git-host, else the item's issuer, else its token endpoint.
        private func host(of credentials: StoredCredentials) throws -> GitHost {
            let url = gitHost.flatMap(URL.init(string:)) ?? credentials.client?.issuer ?? credentials.client?.tokenEndpoint
            guard let host = url.flatMap(GitHost.init(url:)) else {
                throw Failure.usage(
                    "The item records no issuer or token endpoint to bind git's host to: give --git-host URL.")
            }
            return host
        }

        private static func parse(_ input: String) throws -> GitCredential {
            do {
                return try GitCredential(parsing: input)
            } catch {
                throw Failure.badInput(error.description)
            }
        }

        private static func formatted(_ answer: GitCredential) throws -> String {
            do {
                return try answer.formatted()
            } catch {
                throw Failure.badInput(error.description)
            }
        }
    }
}
