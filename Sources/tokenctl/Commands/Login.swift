import ArgumentParser
import Foundation
import TokenAuth
import TokenAuthKeyring

extension TokenCtl {
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign in at a token endpoint and store the tokens with everything needed to refresh them.",
            discussion: """
                Choose one way to sign in:
                  --username U --password-stdin   the password grant
                  --client-credentials            the client credentials grant
                  --tokens-stdin                  tokens you already have (a token
                                                  response or the stored format)

                Secrets come only from standard input, one per line: first the client \
                secret (with --client-secret-stdin; --client-credentials needs it), then the \
                password (with --password-stdin); with --tokens-stdin the tokens follow the \
                client secret's line. From a terminal each is asked for with echo off.
                  printf '%s\\n' "$SECRET" "$PASSWORD" | tokenctl login --service S \\
                    --account A --token-url URL --client-id ID --client-secret-stdin \\
                    --username U --password-stdin

                The item records the token endpoint, client id and secret and the \
                --revocation-url, so `token`, `request` and `logout` need nothing else. \
                Nothing is printed on success. Exit codes: 3 the server refused the \
                credentials, 4 keyring, 5 transient network or server failure, 64 usage, \
                65 malformed standard input.
                """)

        @OptionGroup var item: ItemOptions

        @Option(name: .customLong("token-url"), help: "The token endpoint, e.g. https://auth.example.com/token.")
        var tokenURL: String

        @Option(name: .customLong("client-id"), help: "The OAuth client id.")
        var clientID: String

        @Flag(help: "Read the client secret from the first line of standard input (a confidential client).")
        var clientSecretStdin = false

        @Option(help: "The scope to ask for (space-separated).")
        var scope: String?

        @Option(name: .customLong("revocation-url"), help: "The RFC 7009 revocation endpoint that `logout` uses.")
        var revocationURL: String?

        @Option(help: "Sign in with the password grant as this user (with --password-stdin).")
        var username: String?

        @Flag(help: "Read the password from standard input (after the client secret's line, if any).")
        var passwordStdin = false

        @Flag(help: "Sign in with the client credentials grant.")
        var clientCredentials = false

        @Flag(help: "Store tokens read from standard input instead of signing in.")
        var tokensStdin = false

        @OptionGroup var keyringOptions: KeyringOptions

        func validate() throws {
            let modes = [username != nil || passwordStdin, clientCredentials, tokensStdin].filter { $0 }.count
            guard modes == 1 else {
                throw ValidationError(
                    "Choose exactly one of --username with --password-stdin, --client-credentials, or --tokens-stdin.")
            }
            if (username != nil) != passwordStdin {
                throw ValidationError("--username and --password-stdin go together: the password is read from standard input.")
            }
            if clientCredentials, !clientSecretStdin {
                throw ValidationError("--client-credentials needs --client-secret-stdin: only a confidential client may use it.")
            }
            for (name, value) in [("--token-url", tokenURL), ("--revocation-url", revocationURL)] {
                guard let value else { continue }
                guard let url = URL(string: value), url.host != nil else {
                    throw ValidationError("\(name) must be an absolute URL, e.g. https://auth.example.com/token.")
                }
                guard url.canCarryCredentials else {
                    throw ValidationError("\(name) must use https:// (plain http only for localhost or 127.0.0.1).")
                }
            }
        }

        func run() async throws {
            try await reportingFailures {
                var names: [String] = []
                if clientSecretStdin { names.append("client secret") }
                if passwordStdin { names.append("password") }
                let input = try Terminal.readSecrets(names, remainder: tokensStdin)
                let client = OAuthClient(
                    tokenEndpoint: URL(string: tokenURL)!, clientID: clientID,
                    clientSecret: clientSecretStdin ? input.secrets[0] : nil,
                    revocationEndpoint: revocationURL.flatMap { URL(string: $0) })
                let login = SignIn(client: client, transport: URLSessionTransport(
                    maximumResponseBodySize: TokenResponse.maximumSize, timeout: .seconds(30)))

                let credentials: StoredCredentials
                if tokensStdin {
                    do {
                        credentials = login.adopting(
                            try CredentialsImport.parse(input.rest, receivedAt: systemWallClock()), scope: scope)
                    } catch let error as CredentialsImport.Failure {
                        throw Failure.badInput(error.description)
                    }
                } else if let username {
                    Terminal.status("Signing in as \"\(username)\" at \(tokenURL)…")
                    let password = input.secrets[input.secrets.count - 1]
                    credentials = try await login.perform(.password(username: username, password: password), scope: scope)
                } else {
                    Terminal.status("Signing in as client \"\(clientID)\" at \(tokenURL)…")
                    credentials = try await login.perform(.clientCredentials, scope: scope)
                }
                let store = KeyringAuthStore(service: item.service, account: item.account, keyring: keyringOptions.keyring)
                try await store.saveExplicitly(credentials)
                let summary = CredentialsSummary(
                    service: item.service, account: item.account, credentials: credentials, now: systemWallClock())
                Terminal.status(
                    "Signed in; the token \(summary.relativeExpiry). Stored for account \"\(item.account)\" "
                        + "on service \"\(item.service)\".")
            }
        }
    }
}
