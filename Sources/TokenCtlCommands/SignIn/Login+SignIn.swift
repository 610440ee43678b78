import ArgumentParser
import Foundation
import TokenAuth
import TokenAuthKeyring
import TokenAuthSignIn
import TokenAuthTPM
import TokenAuthURLSession

/// `login`'s sign-in, with TokenAuthSignIn: discovery, the browser and device flows, the grants without a browser,
/// and the store of what they return.
extension TokenCtl.Login {
    /// Signs in as the options ask and stores the result where `--insecure-storage` says.
    func signIn() async throws {
        let command = self
        var names: [String] = []
        if command.clientSecretStdin { names.append("client secret") }
        if command.passwordStdin { names.append("password") }
        let input = try Terminal.readSecrets(names, remainder: command.tokensStdin)
        let clientSecret = command.clientSecretStdin ? input.secrets[0] : nil
        let transport = URLSessionHTTPTransport(maximumResponseBodySize: TokenResponse.maximumSize, timeout: .seconds(30))
        let endpoints = try ResolvedEndpoints(command)
        var metadata: AuthorizationServerMetadata?
        if let issuer = endpoints.issuer {
            Terminal.status("Looking up \(issuer.absoluteString)…")
            // As patient as the token requests: a busy or distant server gets 30 s for each answer.
            let discovery = Discovery(transport: URLSessionHTTPTransport(
                maximumResponseBodySize: AuthorizationServerMetadata.maximumSize, timeout: .seconds(30)),
                timeLimit: .seconds(60))
            metadata = try await discovery.metadata(forIssuer: issuer)
        }
        var client = metadata?.client(id: command.clientID, secret: clientSecret) ?? OAuthClient(
            tokenEndpoint: endpoints.token!, clientID: command.clientID, clientSecret: clientSecret)
        if let revocation = endpoints.revocation { client.revocationEndpoint = revocation }
        let dpop = try command.proofOfPossession(at: metadata)
        let login = SignIn(client: client, transport: transport, dpop: dpop)
        let endpoint = (endpoints.token ?? endpoints.issuer!).absoluteString

        let credentials: StoredCredentials
        if command.usesBrowser, !command.noBrowser, !Self.canStartBrowser {
            // Never a wait of --time-limit for a browser that cannot exist: the device code where the server offers
            // it, as `gh auth login` does, else a sentence that says what to do instead.
            let endpoint = try Self.deviceEndpointWithoutBrowser(metadata: metadata, endpoints: endpoints)
            Terminal.say(
                "No browser can be started here (no DISPLAY or WAYLAND_DISPLAY, and BROWSER is not set): signing in "
                    + "with a code instead, entered in a browser on any device.")
            credentials = try await InteractiveSignIn.device(
                endpoint: endpoint, client: client, scope: command.scope, transport: transport, dpop: dpop)
        } else if command.usesBrowser {
            let endpoint = try metadata.map { try BrowserSignIn.authorizationEndpoint(of: $0) }
                ?? endpoints.required(endpoints.authorization, "--authorization-url")
            credentials = try await InteractiveSignIn.browser(
                authorizationEndpoint: endpoint, issuer: metadata?.issuer,
                requiresIssuerParameter: metadata?.authorizationResponseIssParameterSupported ?? false,
                client: client, scope: command.scope, openBrowser: !command.noBrowser,
                redirect: BrowserSignIn.Redirect(port: command.redirectPort ?? 0, path: command.redirectPath ?? "/callback"),
                timeLimit: .seconds(command.timeLimit), transport: transport, dpop: dpop)
        } else if command.device {
            let endpoint = try metadata.map(Self.deviceAuthorizationEndpoint)
                ?? endpoints.required(endpoints.deviceAuthorization, "--device-authorization-url")
            credentials = try await InteractiveSignIn.device(
                endpoint: endpoint, client: client, scope: command.scope, transport: transport, dpop: dpop)
        } else if command.tokensStdin {
            credentials = login.adopting(try Self.tokens(in: input.rest), scope: command.scope)
        } else if let username = command.username {
            Terminal.status("Signing in as \"\(username)\" at \(endpoint)…")
            let password = input.secrets[input.secrets.count - 1]
            credentials = try await login.perform(.password(username: username, password: password), scope: command.scope)
        } else {
            // Only when asked for (validate() leaves no other way here): a grant is never chosen by elimination.
            precondition(command.clientCredentials, "login reached the client credentials grant without being asked")
            Terminal.status("Signing in as client \"\(command.clientID)\" at \(endpoint)…")
            credentials = try await login.perform(.clientCredentials, scope: command.scope)
        }
        if command.dpop, !credentials.auth.isDPoPBound {
            throw Failure.usage(
                "The server answered the DPoP sign-in with \(credentials.auth.tokenType) tokens: it did not bind them to "
                    + "the key. Nothing was stored. Enable DPoP for this client at the provider, or sign in without --dpop.")
        }
        let item = command.item
        let location = try await command.storage.saveExplicitly(
            credentials, for: item, keyring: command.keyringOptions.keyring, command: "login")
        let summary = CredentialsSummary(service: item.service, account: item.account, credentials: credentials, now: systemWallClock())
        Terminal.status(
            "Signed in; the token \(summary.relativeExpiry). Stored for account \"\(item.account)\" "
                + "on service \"\(item.service)\" in \(location.named).")
    }

    /// The proof of possession the sign-in binds the tokens with: with `--dpop` always (at an issuer whose metadata
    /// does not list ES256 for DPoP, a usage failure naming it, before anything is sent), without it where the
    /// metadata lists ES256; `nil` for bearer tokens, and for `--tokens-stdin`, whose tokens were issued elsewhere.
    /// Its keys are made as `--dpop-key` says.
    func proofOfPossession(at metadata: AuthorizationServerMetadata?) throws -> DPoP? {
        guard !tokensStdin else { return nil }
        if dpop, let metadata, !metadata.supportsDPoP {
            throw Failure.usage(
                "\(metadata.issuer) does not list ES256 in dpop_signing_alg_values_supported: it does not bind tokens "
                    + "to a key (DPoP). Sign in without --dpop, or at an issuer that supports DPoP.")
        }
        guard dpop || metadata?.supportsDPoP == true, let preference = MachineProofKeys.Preference(dpopKey) else {
            return nil
        }
        return DPoP(keys: MachineProofKeys(preference))
    }

    /// Whether the browser sign-in can start a browser here, by the system browser's own rule: `BROWSER`, a display
    /// (`DISPLAY`, `WAYLAND_DISPLAY`), or a Flatpak sandbox, whose portal opens one on the host.
    static var canStartBrowser: Bool {
        do {
            _ = try SystemBrowser().commands(for: URL(string: "https://example.com/")!)
            return true
        } catch {
            return error.code != .noGraphicalSession
        }
    }

    /// The device authorization endpoint for a browser sign-in that cannot start a browser: discovered, or known for
    /// the provider; without one, a usage failure saying what to do instead. Nothing was sent then.
    private static func deviceEndpointWithoutBrowser(
        metadata: AuthorizationServerMetadata?, endpoints: ResolvedEndpoints
    ) throws -> URL {
        if let endpoint = metadata?.deviceAuthorizationEndpoint ?? endpoints.deviceAuthorization { return endpoint }
        let server = metadata?.issuer ?? endpoints.providerName ?? endpoints.token?.host ?? "The server"
        throw Failure.usage(
            "No browser can be started here (no DISPLAY or WAYLAND_DISPLAY, and BROWSER is not set), and \(server) "
                + "offers no sign-in with a code (no device authorization endpoint), so nothing was sent. Sign in where "
                + "a browser runs and store the tokens here with `tokenctl import`; or set BROWSER to a browser this "
                + "machine can run; or, to open the sign-in page yourself in a browser that reaches this machine's "
                + "127.0.0.1 (through `ssh -L`, say), run again with --no-browser, which prints the URL and waits "
                + "for the answer.")
    }

    /// The device authorization endpoint that `metadata` names, or a usage failure that says there is none.
    private static func deviceAuthorizationEndpoint(_ metadata: AuthorizationServerMetadata) throws -> URL {
        guard let endpoint = metadata.deviceAuthorizationEndpoint else {
            throw Failure.usage(
                "\(metadata.issuer) publishes no device authorization endpoint; sign in through the browser instead.")
        }
        return endpoint
    }

    /// Tokens pasted on standard input, or a bad-input failure that says what is wrong with them.
    private static func tokens(in text: String) throws -> StoredCredentials {
        do {
            return try CredentialsImport.parse(text, receivedAt: systemWallClock())
        } catch {
            throw Failure.badInput(error.description)
        }
    }
}
