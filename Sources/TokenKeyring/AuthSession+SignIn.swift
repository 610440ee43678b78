#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import TokenAuth
import TokenAuthFileStore
import TokenAuthKeyring
import TokenAuthSignIn

extension AuthSession {
    /// How ``signIn(using:as:isolation:showCode:showPage:openBrowser:)`` signs in.
    public enum SignInMethod: Sendable, Hashable {
        /// The system browser where one can open — a graphical session, `BROWSER` set, or a Flatpak sandbox (through
        /// the desktop portal) — and the provider has an authorization endpoint; else, or when no browser could be
        /// started after all, a code on another device. When the provider has a device endpoint too and the browser
        /// has not come back within the configuration's `browserFallback`, the code is shown as well, and whichever
        /// comes back first signs in: a browser command that starts and opens nothing does not leave the user waiting.
        case automatic
        /// The system browser, with a redirect to a loopback listener (RFC 8252), PKCE and `state`.
        case browser
        /// A code the user enters in a browser on any device (RFC 8628): over SSH, on a console, in a kiosk.
        case deviceCode
    }

    /// Signs the user in and stores the tokens in the keyring, as the current account.
    ///
    /// ```swift
    /// @MainActor final class SignInModel {
    ///     var code = ""
    ///     func signIn(_ session: AuthSession) async throws {
    ///         try await session.signIn { prompt in self.code = prompt.userCode }  // runs on the main actor
    ///     }
    /// }
    /// ```
    ///
    /// The hooks run on the caller's actor — `@MainActor` code sets its state in them as it is, and a GTK app's
    /// `@GLibMainActor` code touches its widgets — and never for a sign-in already cancelled. The network work runs
    /// elsewhere. Cancel the task to give the sign-in up: it ends with `CancellationError`.
    ///
    /// - Parameters:
    ///   - method: How to sign in; ``SignInMethod/automatic`` by default.
    ///   - account: The keyring item's `account` attribute; by default the configuration's `account`, else the
    ///     identity's display name, else its subject, else `default`.
    ///   - isolation: The actor the hooks run on; the caller's, unless you pass another.
    ///   - showCode: Shows the device flow's code and where to enter it; called once, when the device flow is used.
    ///     A trailing closure is this one.
    ///   - showPage: Shows the browser's sign-in page address, called once before the browser is opened: a browser
    ///     that starts may not come to the front, or open nothing, and the user can open the address by hand.
    ///   - openBrowser: Opens the sign-in page; by default the system browser (`BROWSER`, `xdg-open`, or in a sandbox
    ///     the desktop portal).
    /// - Returns: The account now signed in.
    /// - Throws: `SignInError` (declined, timed out, no usable endpoint), `TokenAuthError` (an endpoint failed),
    ///   `KeyringError` (the tokens could not be stored: nothing is signed in), or `CancellationError`.
    @discardableResult
    public func signIn(
        using method: SignInMethod = .automatic,
        as account: String? = nil,
        isolation: isolated (any Actor)? = #isolation,
        showCode: (DeviceAuthorization.Prompt) -> Void = { _ in },
        showPage: (URL) -> Void = { _ in },
        openBrowser: ((URL) async throws -> Void)? = nil
    ) async throws -> Account {
        let metadata = try await discoveredMetadata()
        let credentials: StoredCredentials
        switch try Self.choose(method, metadata: metadata, environment: browserEnvironment) {
        case .browser where method == .automatic && metadata.deviceAuthorizationEndpoint != nil:
            credentials = try await signInWithBrowserOrCode(
                metadata, showCode: showCode, showPage: showPage, openBrowser: openBrowser)
        case .browser:
            let started = try await beginBrowserSignIn(metadata)
            try Task.checkCancellation()
            showPage(started.url)
            // Listening while the browser is opened: a hook may wait for the page it opened.
            async let received = started.finish()
            try await open(started, openBrowser: openBrowser)
            credentials = try await received.credentials
        case .deviceCode, .automatic:
            credentials = try await signInWithCode(metadata, showCode: showCode)
        }
        try checkBinding(of: credentials)
        return try await store(credentials, as: account)
    }

    /// The browser sign-in, started: its loopback listener waits for the redirect.
    func beginBrowserSignIn(_ metadata: AuthorizationServerMetadata) async throws -> BrowserSignIn.Started {
        let configuration = self.configuration
        let flow = try BrowserSignIn(
            metadata: metadata, clientID: configuration.clientID, clientSecret: configuration.clientSecret,
            redirect: configuration.redirect, timeLimit: configuration.browserTimeLimit,
            transport: configuration.transport, wallClock: configuration.wallClock, dpop: try signInProof(at: metadata))
        return try await flow.begin(scope: configuration.scope)
    }

    /// Opens the browser at `started`'s page with the app's hook or the system browser. When that fails, the listener
    /// is abandoned and the error thrown — a `CancellationError` when the sign-in was cancelled meanwhile.
    func open(
        _ started: BrowserSignIn.Started,
        isolation: isolated (any Actor)? = #isolation,
        openBrowser: ((URL) async throws -> Void)?
    ) async throws {
        do {
            try Task.checkCancellation()
            if let openBrowser {
                try await openBrowser(started.url)
            } else {
                try await SystemBrowser(environment: browserEnvironment, portal: { url in
                    try await DesktopPortal.openURI(url)
                }).open(started.url)
            }
        } catch {
            // Ends the listener's wait.
            await started.abandon()
            // A browser not started because the user gave up (SystemBrowser says `browserNotStarted`) is a cancelled
            // sign-in, as documented: never a reason to fall back to the code.
            if Task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    /// The device flow, its hook on the caller's isolation.
    func signInWithCode(
        _ metadata: AuthorizationServerMetadata,
        isolation: isolated (any Actor)? = #isolation,
        showCode: (DeviceAuthorization.Prompt) -> Void
    ) async throws -> StoredCredentials {
        let started = try await beginCodeSignIn(metadata)
        try Task.checkCancellation()
        showCode(started.prompt)
        return try await started.finish()
    }

    /// The device flow, started: its code is ready to show, and `finish()` polls for the approval.
    func beginCodeSignIn(_ metadata: AuthorizationServerMetadata) async throws -> DeviceAuthorization.Started {
        let configuration = self.configuration
        let flow = try DeviceAuthorization(
            metadata: metadata, clientID: configuration.clientID, clientSecret: configuration.clientSecret,
            transport: configuration.transport, wallClock: configuration.wallClock, dpop: try signInProof(at: metadata))
        return try await flow.begin(scope: configuration.scope)
    }

    /// Signs in with tokens obtained elsewhere — a token response or the stored format (`CredentialsImport`) — and
    /// stores them as the current account, recorded with this session's client.
    @discardableResult
    public func signIn(with credentials: StoredCredentials, as account: String? = nil) async throws -> Account {
        let metadata = try await discoveredMetadata()
        let adopted = SignIn(
            client: metadata.client(id: configuration.clientID, secret: configuration.clientSecret),
            transport: configuration.transport
        ).adopting(credentials, scope: configuration.scope)
        return try await store(adopted, as: account)
    }

    /// The provider's metadata: discovered from the issuer once, or made from the configured endpoints.
    func discoveredMetadata() async throws -> AuthorizationServerMetadata {
        if let metadata { return metadata }
        let discovered: AuthorizationServerMetadata
        switch configuration.provider {
        case .issuer(let issuer):
            discovered = try await Discovery(transport: configuration.transport).metadata(forIssuer: issuer)
        case .endpoints(let endpoints):
            discovered = endpoints.metadata
        }
        metadata = discovered
        return discovered
    }

    /// The flow `method` means for a provider with `metadata`, here.
    static func choose(
        _ method: SignInMethod, metadata: AuthorizationServerMetadata, environment: [String: String]
    ) throws -> SignInMethod {
        guard method == .automatic else { return method }
        let browserCanOpen =
            (try? SystemBrowser(environment: environment).commands(for: URL(string: "https://example.invalid/")!)) != nil
        if browserCanOpen, metadata.authorizationEndpoint != nil { return .browser }
        if metadata.deviceAuthorizationEndpoint != nil { return .deviceCode }
        return .browser  // its error says why no browser can open
    }

    /// Stores a sign-in's credentials in the keyring item of `account` (under its lock), makes it the current account
    /// and the service's default, and publishes the new state.
    func store(_ credentials: StoredCredentials, as account: String?) async throws -> Account {
        let identity = credentials.identity
        let name = account ?? configuration.account ?? identity?.displayName ?? identity?.subject ?? "default"
        let store = KeyringAuthStore(service: configuration.service, account: name, keyring: configuration.keyring)
        try await store.signIn(credentials)
        chosenAccount = name
        managers[name] = nil  // made anew from the item, with the client it now records
        do {
            try DefaultAccounts.set(name, for: configuration.service)
        } catch {
            logger.debug("could not record the default account", metadata: ["error": "\(LogRedaction.error(error))"])
        }
        publish(await readState())
        return Account(name: name, identity: identity)
    }
}
