import ArgumentParser
import Foundation
import TokenAuth
import TokenAuthKeyring
import TokenAuthSignIn
import TokenAuthTPM

extension TokenCtl {
    package struct Login: AsyncParsableCommand {
        package init() {}

        package static let configuration = CommandConfiguration(
            commandName: "login",
            abstract: "Sign in and store the tokens with everything needed to refresh them.",
            discussion: """
                With --issuer, the server's endpoints are discovered (RFC 8414, OpenID \
                Connect Discovery) and, unless another way is chosen, the user signs in \
                through the system browser (authorization code + PKCE, redirected to \
                127.0.0.1). The URL is always printed on standard error; --no-browser only \
                prints it. --device shows a code to enter on any device's browser instead. \
                Where no browser can be started (no DISPLAY or WAYLAND_DISPLAY, no BROWSER: \
                SSH, a server), login signs in with such a code when the server offers \
                it, and says so; otherwise it stops at once and says what to do.

                  tokenctl login --service S --account A \\
                    --issuer https://auth.example.com --client-id ID --scope "openid profile"

                --provider github, google, gitlab or microsoft[=TENANT] fills in a known \
                provider's issuer or endpoints (GitHub has no discovery).

                  tokenctl login --service S --account A --provider github \\
                    --client-id ID --client-secret-stdin

                For servers without discovery, give the endpoints by hand: --token-url with \
                --authorization-url for the browser, or with --device-authorization-url for \
                --device.

                  tokenctl login --service S --account A --client-id ID \\
                    --authorization-url https://auth.example.com/authorize \\
                    --token-url https://auth.example.com/token

                Other ways to sign in, with --issuer or with --token-url for servers \
                without discovery:

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

                The item records the issuer, token endpoint, client id and secret and the \
                revocation endpoint, so `token`, `request` and `logout` need nothing else.

                DPoP (RFC 9449) binds the tokens to a key, so that a token copied out of the \
                keyring is useless without its proofs: chosen when discovery lists ES256 in \
                dpop_signing_alg_values_supported, or always with --dpop (which fails at an \
                issuer that does not list it). --dpop-key says where the key is made: tpm \
                (a TPM 2.0 key that never leaves it), software (stored in the item) or auto \
                (the default: the TPM where one can be used, see `tokenctl doctor`).

                  tokenctl login --service S --account A --issuer URL --client-id ID \\
                    --scope SC --device --dpop

                Where no Secret Service can run (SSH, containers, CI), --insecure-storage \
                stores the tokens in a file instead, unencrypted: \
                $XDG_STATE_HOME/tokenkeyring/SERVICE+ACCOUNT.json (~/.local/state by \
                default; the directory 0700, the file 0600), with a warning each time. \
                Every other command looks in the keyring first, then in that file. Without \
                the flag, a missing Secret Service is exit 4 before anything is sent.

                Exit codes: 3 the sign-in was refused or declined, 4 keyring, 5 transient \
                network or server failure (or no answer in time), 64 usage or a server that \
                cannot be used as configured (or a browser sign-in where no browser can be \
                started and the server offers no device code), 65 malformed standard input.
                """)

        @OptionGroup package var item: ItemOptions

        @Option(help: "The issuer URL, e.g. https://auth.example.com: its endpoints are discovered.")
        package var issuer: String?

        @Option(help: "A provider whose endpoints are known: github, google, gitlab or microsoft[=TENANT] (common, organizations, consumers or a tenant id).")
        package var provider: String?

        @Option(name: .customLong("token-url"), help: "The token endpoint, for servers without discovery.")
        package var tokenURL: String?

        @Option(
            name: .customLong("authorization-url"),
            help: "The authorization endpoint, for the browser sign-in with --token-url (servers without discovery).")
        package var authorizationURL: String?

        @Option(
            name: .customLong("device-authorization-url"),
            help: "The device authorization endpoint, for --device with --token-url (servers without discovery).")
        package var deviceAuthorizationURL: String?

        @Option(name: .customLong("client-id"), help: "The OAuth client id.")
        package var clientID: String

        @Flag(help: "Read the client secret from the first line of standard input (a confidential client).")
        package var clientSecretStdin = false

        @Option(help: "The scope to ask for (space-separated).")
        package var scope: String?

        @Option(name: .customLong("revocation-url"), help: "The RFC 7009 revocation endpoint that `logout` uses.")
        package var revocationURL: String?

        @Option(help: "Sign in with the password grant as this user (with --password-stdin).")
        package var username: String?

        @Flag(help: "Read the password from standard input (after the client secret's line, if any).")
        package var passwordStdin = false

        @Flag(help: "Sign in with the client credentials grant.")
        package var clientCredentials = false

        @Flag(help: "Store tokens read from standard input instead of signing in.")
        package var tokensStdin = false

        @Flag(help: "Sign in with a code shown here and entered in any browser (the device authorization grant).")
        package var device = false

        @Flag(help: "Do not start a browser: only print the sign-in URL.")
        package var noBrowser = false

        @Flag(help: "Bind the tokens to a key (DPoP); without it, DPoP is used where discovery lists ES256 for it.")
        package var dpop = false

        @Option(help: "Where the DPoP key is made: tpm, software or auto (the TPM where one can be used).")
        package var dpopKey: String = "auto"

        @Option(help: "The port of the loopback redirect (default: one the system chooses).")
        package var redirectPort: Int?

        @Option(help: "The path of the loopback redirect (default: /callback).")
        package var redirectPath: String?

        @Option(help: "How long to wait for the browser to come back, in seconds.")
        package var timeLimit: Int = 300

        @OptionGroup package var keyringOptions: KeyringOptions

        @OptionGroup package var storage: StorageOptions

        /// The browser sign-in is the default with --issuer.
        package var usesBrowser: Bool { !(username != nil || passwordStdin || clientCredentials || tokensStdin || device) }

        package func validate() throws {
            if provider != nil, issuer != nil {
                throw ValidationError("Give --provider or --issuer, not both: a provider names its issuer or endpoints.")
            }
            guard provider != nil || (issuer == nil) != (tokenURL == nil) else {
                throw ValidationError("Give exactly one of --issuer (discovery), --provider and --token-url.")
            }
            let modes = [username != nil || passwordStdin, clientCredentials, tokensStdin, device].filter { $0 }.count
            guard modes <= 1 else {
                throw ValidationError(
                    "Choose one way to sign in: the browser (the default), --device, --username with --password-stdin, "
                        + "--client-credentials, or --tokens-stdin.")
            }
            try validateEndpoints()
            guard MachineProofKeys.Preference(dpopKey) != nil else {
                throw ValidationError("--dpop-key is tpm, software or auto.")
            }
            if dpop, tokensStdin {
                throw ValidationError(
                    "--dpop binds the tokens of a sign-in; tokens read with --tokens-stdin were issued elsewhere, bound or not.")
            }
            if !usesBrowser, noBrowser || redirectPort != nil || redirectPath != nil {
                throw ValidationError("--no-browser, --redirect-port and --redirect-path belong to the browser sign-in.")
            }
            if let redirectPort, !(1...65535).contains(redirectPort) {
                throw ValidationError("--redirect-port must be between 1 and 65535.")
            }
            if let redirectPath, !redirectPath.hasPrefix("/") {
                throw ValidationError("--redirect-path must start with /, e.g. /callback.")
            }
            // At most a day: the clock cannot sleep for Int.max seconds (it traps).
            guard timeLimit > 0, timeLimit <= 86_400 else {
                throw ValidationError("--time-limit must be a positive number of seconds, at most 86400 (a day).")
            }
            if (username != nil) != passwordStdin {
                throw ValidationError("--username and --password-stdin go together: the password is read from standard input.")
            }
            if clientCredentials, !clientSecretStdin {
                throw ValidationError("--client-credentials needs --client-secret-stdin: only a confidential client may use it.")
            }
            let urls = [
                ("--issuer", issuer), ("--token-url", tokenURL), ("--revocation-url", revocationURL),
                ("--authorization-url", authorizationURL), ("--device-authorization-url", deviceAuthorizationURL),
            ]
            for (name, value) in urls {
                guard let value else { continue }
                guard let url = URL(string: value), url.host != nil else {
                    throw ValidationError("\(name) must be an absolute URL, e.g. https://auth.example.com/token.")
                }
                guard url.canCarryCredentials else {
                    throw ValidationError("\(name) must use https:// (plain http only for localhost or 127.0.0.1).")
                }
            }
        }

        /// The endpoints each way to sign in needs: discovered with --issuer, else given by hand. A grant is never
        /// chosen that was not asked for: without the endpoint it needs, a sign-in is a usage error naming it.
        private func validateEndpoints() throws {
            if issuer != nil, authorizationURL != nil || deviceAuthorizationURL != nil {
                throw ValidationError(
                    "--authorization-url and --device-authorization-url are for servers without discovery: give them "
                        + "with --token-url, not with --issuer.")
            }
            if authorizationURL != nil, !usesBrowser {
                throw ValidationError("--authorization-url belongs to the browser sign-in.")
            }
            if deviceAuthorizationURL != nil, !device {
                throw ValidationError("--device-authorization-url belongs to --device.")
            }
            // A provider's endpoints are known once the sign-in reads its table (`ResolvedEndpoints`).
            guard issuer == nil, provider == nil else { return }
            if usesBrowser, authorizationURL == nil {
                throw ValidationError(
                    "The browser sign-in needs the authorization endpoint: give --authorization-url with --token-url, or "
                        + "--issuer to discover both.")
            }
            if device, deviceAuthorizationURL == nil {
                throw ValidationError(
                    "--device needs the device authorization endpoint: give --device-authorization-url with --token-url, "
                        + "or --issuer to discover both.")
            }
        }

        package func run() async throws {
            try await reportingFailures {
                // Before the sign-in: without a Secret Service, tokens the user signs in for would have nowhere to go.
                try await storage.checkStorage(for: item, keyring: keyringOptions.keyring, command: "login")
                try await signIn()
            }
        }
    }
}
