import ArgumentParser
import Foundation
import TokenAuth
import TokenAuthKeyring

extension TokenCtl {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Store tokens read from standard input in the keyring, replacing what was stored.",
            discussion: """
                Standard input holds the stored JSON format ({"version":1,"access_token":…}), an \
                OAuth 2.0 token response ({"access_token":…,"expires_in":3600,…}; `expires_in` becomes an \
                absolute expiry) or a bare access token on one line (RFC 6750 b64token characters). With --token-url and --client-id the item also records how to refresh the tokens. \
                Exit code 65 when the input is malformed.
                """)

        @OptionGroup var item: ItemOptions

        @Option(help: "The token endpoint that can refresh these tokens.")
        var tokenURL: String?

        @Option(help: "The OAuth client id to refresh with.")
        var clientID: String?

        @OptionGroup var keyringOptions: KeyringOptions

        func validate() throws {
            guard (tokenURL == nil) == (clientID == nil) else {
                throw ValidationError("--token-url and --client-id go together.")
            }
            if let tokenURL, URL(string: tokenURL)?.host == nil {
                throw ValidationError("--token-url must be an absolute URL, e.g. https://auth.example.com/token.")
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
                let store = KeyringAuthStore(service: item.service, account: item.account, keyring: keyringOptions.keyring)
                try await store.saveExplicitly(credentials)
                Terminal.status("Stored tokens for account \"\(item.account)\" on service \"\(item.service)\".")
            }
        }
    }
}
