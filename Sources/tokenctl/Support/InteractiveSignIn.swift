import Foundation
import TokenAuth
import TokenAuthSignIn

/// The sign-ins that need the user: what tokenctl shows while the library's flows run.
enum InteractiveSignIn {
    /// The browser sign-in: prints the URL on stderr (always), starts the browser unless told not to, and waits.
    static func browser(
        metadata: AuthorizationServerMetadata,
        client: OAuthClient,
        scope: String?,
        openBrowser: Bool,
        redirect: BrowserSignIn.Redirect,
        timeLimit: Duration,
        transport: any HTTPTransport
    ) async throws -> StoredCredentials {
        let endpoint = try BrowserSignIn.authorizationEndpoint(of: metadata)
        let flow = try BrowserSignIn(
            client: client, authorizationEndpoint: endpoint, issuer: metadata.issuer,
            requiresIssuerParameter: metadata.authorizationResponseIssParameterSupported, redirect: redirect,
            timeLimit: timeLimit, transport: transport)
        return try await flow.signIn(scope: scope) { url in
            Terminal.say("To sign in, open this URL in a browser on this machine:\n  \(url.absoluteString)")
            if openBrowser {
                do {
                    try SystemBrowser().open(url)
                    Terminal.say("Opened your browser; waiting for you to finish there…")
                } catch {
                    Terminal.say("\(error)")
                }
            }
        }
    }

    /// The device sign-in: shows the code on stderr exactly as the server sent it, and polls.
    static func device(
        metadata: AuthorizationServerMetadata,
        client: OAuthClient,
        scope: String?,
        transport: any HTTPTransport
    ) async throws -> StoredCredentials {
        guard let endpoint = metadata.deviceAuthorizationEndpoint else {
            throw Failure.usage(
                "\(metadata.issuer) publishes no device authorization endpoint; sign in through the browser instead.")
        }
        let flow = DeviceAuthorization(client: client, deviceAuthorizationEndpoint: endpoint, transport: transport)
        return try await flow.signIn(scope: scope) { prompt in
            var message = "To sign in, open \(prompt.verificationURI.absoluteString) on any device and enter the code:\n"
                + "  \(prompt.userCode)"
            if let complete = prompt.verificationURIComplete {
                message += "\nor open \(complete.absoluteString) directly."
            }
            Terminal.say(message + "\nWaiting for you to approve…")
        }
    }
}
