import Foundation
import Keyring
import TokenAuth
import TokenAuthSignIn

/// The sign-ins that need the user: what tokenctl shows while the library's flows run.
enum InteractiveSignIn {
    /// The browser sign-in: prints the URL on stderr (always), starts the browser unless told not to, and waits.
    static func browser(
        authorizationEndpoint: URL,
        issuer: String?,
        requiresIssuerParameter: Bool,
        client: OAuthClient,
        scope: String?,
        openBrowser: Bool,
        redirect: BrowserSignIn.Redirect,
        timeLimit: Duration,
        transport: any HTTPTransport,
        dpop: DPoP?
    ) async throws -> StoredCredentials {
        let flow = try BrowserSignIn(
            client: client, authorizationEndpoint: authorizationEndpoint, issuer: issuer,
            requiresIssuerParameter: requiresIssuerParameter, redirect: redirect, timeLimit: timeLimit,
            transport: transport, dpop: dpop)
        return try await flow.signIn(scope: scope) { url in
            Terminal.say("To sign in, open this URL in a browser on this machine:\n  \(url.absoluteString)")
            if openBrowser {
                do {
                    try await SystemBrowser(portal: { url in try await DesktopPortal.openURI(url) }).open(url)
                    Terminal.say("Opened your browser; waiting for you to finish there…")
                } catch {
                    Terminal.say("\(error)")
                }
            }
        }
    }

    /// The device sign-in: shows the code on stderr exactly as the server sent it, and polls.
    static func device(
        endpoint: URL,
        client: OAuthClient,
        scope: String?,
        transport: any HTTPTransport,
        dpop: DPoP?
    ) async throws -> StoredCredentials {
        let flow = DeviceAuthorization(
            client: client, deviceAuthorizationEndpoint: endpoint, transport: transport, dpop: dpop)
        return try await flow.signIn(scope: scope) { prompt in
            var message = "To sign in, open \(prompt.verificationURI.absoluteString) on any device and enter the code:\n"
                + "  \(ServerText.printable(prompt.userCode))"
            if let complete = prompt.verificationURIComplete {
                message += "\nor open \(complete.absoluteString) directly."
            }
            Terminal.say(message + "\nWaiting for you to approve…")
        }
    }
}
