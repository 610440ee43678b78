import ArgumentParser
import Foundation
import TokenAuth
import TokenAuthKeyring

extension TokenCtl {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Store tokens read from standard input in the keyring (or a file), replacing what was stored.",
            discussion: """
                Standard input holds the stored JSON format ({"version":1,"access_token":…}), an \
                OAuth 2.0 token response ({"access_token":…,"expires_in":3600,…}; `expires_in` becomes an \
                absolute expiry) or a bare access token on one line (RFC 6750 b64token characters). With --token-url and --client-id the item also records how to refresh the tokens. \
                With --insecure-storage the tokens go to an unencrypted file instead of the keyring (see `login`). \
                Input that is not what it claims is refused, and nothing is stored: an RFC 3339 date that does not \
                exist (2030-02-30), an `expires_in` that is neither a number nor a numeric string, JSON that is not \
                one object (`null`, an array, a trailing comma), an endpoint that is neither https nor http on a \
                loopback host, more than 64 KiB. \
                Exit codes: 4 keyring (no Secret Service: the message names --insecure-storage), 65 malformed input.
                """)

        @OptionGroup var item: ItemOptions

        @Option(help: "The token endpoint that can refresh these tokens.")
        var tokenURL: String?

        @Option(help: "The OAuth client id to refresh with.")
        var clientID: String?

        @OptionGroup var keyringOptions: KeyringOptions

        @OptionGroup var storage: StorageOptions

        func validate() throws {
            guard (tokenURL == nil) == (clientID == nil) else {
                throw ValidationError("--token-url and --client-id go together.")
            }
            if let tokenURL {
                guard let url = URL(string: tokenURL), url.host != nil else {
                    throw ValidationError("--token-url must be an absolute URL, e.g. https://auth.example.com/token.")
                }
                // Refused now, not at the first refresh, which would send the refresh token to it.
                guard url.canCarryCredentials else {
                    throw ValidationError("--token-url must use https:// (plain http only for localhost or 127.0.0.1).")
                }
            }
        }

        func run() async throws {
            try await reportingFailures {
                let input = try Terminal.readStandardInput()
                var credentials: StoredCredentials
                do {
                    credentials = try CredentialsImport.parse(input, receivedAt: systemWallClock())
                } catch let error as CredentialsImport.Failure {
                    throw Failure.badInput(error.description)
                }
                if let tokenURL, let clientID, let url = URL(string: tokenURL) {
                    let previous = credentials.client
                    let sameClient = previous?.clientID == clientID
                    credentials.client = OAuthClient(
                        tokenEndpoint: url, clientID: clientID,
                        clientSecret: sameClient ? previous?.clientSecret : nil,
                        revocationEndpoint: previous?.revocationEndpoint,
                        issuer: sameClient ? previous?.issuer : nil, jwksURI: sameClient ? previous?.jwksURI : nil,
                        userinfoEndpoint: sameClient ? previous?.userinfoEndpoint : nil)
                }
                let location = try await storage.saveExplicitly(
                    credentials, for: item, keyring: keyringOptions.keyring, command: "import")
                Terminal.status(
                    "Stored tokens for account \"\(item.account)\" on service \"\(item.service)\" in \(location.named).")
            }
        }
    }
}
