#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import Logging
import TokenAuth
import TokenAuthKeyring
import TokenAuthSignIn
import TokenAuthURLSession

/// The session of your app's user with one OAuth 2.0 provider: signs in, keeps the user signed in, hands out an
/// authorized client, and signs out — the one object a desktop app needs.
///
/// ```swift
/// import Foundation
/// import TokenKeyring
///
/// let session = AuthSession(issuer: URL(string: "https://auth.example.com")!, clientID: "my-desktop-app")
/// if case .signedOut = await session.state() {
///     try await session.signIn { prompt in
///         print("Open \(prompt.verificationURI) and enter \(prompt.userCode)")  // where no browser can open
///     }
/// }
/// let api = try await session.client()
/// let profile = try await api.load(Profile.self, from: URL(string: "https://api.example.com/me")!)
/// ```
///
/// It does what the lower types do when they are put together right — and puts them together right:
/// - **Sign-in** (``signIn(using:as:isolation:showCode:showPage:openBrowser:)``): the provider's endpoints found from its issuer
///   (`Discovery`, once), the system browser with a loopback redirect and PKCE (`BrowserSignIn`) or, where no browser
///   can open, a code to enter on another device (`DeviceAuthorization`); with `openid` in the scope, the `id_token`
///   checked and the identity kept. The hooks that show a code or open a browser run on the caller's actor: a
///   `@MainActor` view model sets its properties in them as they are.
/// - **Storage**: one keyring item per account (`KeyringAuthStore`: attributes `service` and `account`), written
///   under the item's lock, so that `tokenctl` and other instances of the app share it safely.
/// - **Staying signed in**: an `AuthManager` per account, with every default the articles recommend on — it follows
///   the keyring's and the lock's announcements of changes, refreshes once across processes, keeps a refresh's answer
///   until stored, revokes what it will never use, and re-checks the identity of every refreshed `id_token`.
/// - **Sign-out** (``signOut()``): the tokens revoked at the provider, then the item deleted, in that order, under
///   the item's lock; then the manager forgets them.
/// - **Accounts** (``accounts()``, ``switchAccount(to:)``): several accounts of one provider side by side, one of
///   them current — the same default account `tokenctl switch` chooses.
///
/// It is usable before anything is stored: ``state()`` says ``State/signedOut``, and everything but
/// ``signIn(using:as:isolation:showCode:showPage:openBrowser:)`` throws `TokenAuthError` with `isLoginRequired` until then.
/// A keyring it cannot read — locked, no Secret Service, not answering — is never taken for "signed out":
/// ``State/unavailable(_:)`` carries the `KeyringError` to show.
public actor AuthSession {
    /// Everything the session is made from.
    public nonisolated let configuration: Configuration
    /// The provider's metadata, once discovered.
    var metadata: AuthorizationServerMetadata?
    /// The account the session works on, when one is chosen; else the service's default (see ``currentAccount()``).
    var chosenAccount: String?
    /// A manager per account, made on first use.
    var managers: [String: AuthManager] = [:]
    /// The continuations of ``states``, and the task that follows the keyring for them.
    var observers: [Int: AsyncStream<State>.Continuation] = [:]
    var nextObserver = 0
    var lastState: State?
    /// The keyring reads of ``readState()`` under way, for which the states may say that the keyring keeps them waiting.
    var pendingReads: Set<Int> = []
    var nextRead = 0
    var watching: Task<Void, Never>?
    /// Whether the items of the earlier default service were looked at for adoption (``adoptEarlierItems()``).
    var adoptionDone = false
    let logger: Logger
    /// What ``SignInMethod/automatic`` and the default browser read (`BROWSER`, `DISPLAY`, `WAYLAND_DISPLAY`,
    /// `FLATPAK_ID`, `PATH`): this process's environment, or a test's.
    nonisolated let browserEnvironment: [String: String]

    /// A session with the provider whose issuer is `issuer` (found through its published metadata, RFC 8414 or OpenID
    /// Connect Discovery), for the public client `clientID`.
    ///
    /// - Parameters:
    ///   - issuer: The provider's issuer URL, such as `https://auth.example.com`.
    ///   - clientID: Your app's client ID at the provider: a public client (a desktop app keeps no secret) allowed to
    ///     use the authorization code flow with a loopback redirect, or the device flow, or both.
    ///   - scope: The scope to ask for; `openid` (the default) makes the provider say who signed in.
    ///   - service: The keyring items' `service` attribute; by default ``defaultService(issuer:clientID:)``,
    ///     `CLIENT_ID@HOST[:PORT][/PATH]`, so that two apps, two realms of one host and two ports of one host each have
    ///     a session of their own. Items written under the earlier default (the issuer's host alone) are adopted by
    ///     the app whose client ID and issuer they record, never by another.
    ///   - redirect: The browser sign-in's loopback redirect: by default any free port; a fixed one
    ///     (`.init(port: 8765)`) for providers that match redirect URIs exactly.
    ///   - keyring: The Secret Service client (timeouts, prompts).
    ///   - transport: How every request is sent: discovery, the token endpoint, your API.
    public init(
        issuer: URL, clientID: String, scope: String? = "openid", service: String? = nil,
        redirect: BrowserSignIn.Redirect = BrowserSignIn.Redirect(), keyring: Keyring = Keyring(),
        transport: any HTTPTransport = URLSessionHTTPTransport(maximumResponseBodySize: TokenResponse.maximumSize)
    ) {
        var configuration = Configuration(
            provider: .issuer(issuer), clientID: clientID, scope: scope,
            service: service ?? Self.defaultService(issuer: issuer, clientID: clientID), keyring: keyring,
            transport: transport, redirect: redirect)
        if service == nil { configuration.adoptsItemsOf = issuer.host ?? issuer.absoluteString }
        self.init(configuration: configuration)
    }

    /// The keyring `service` of a session made with ``init(issuer:clientID:scope:service:redirect:keyring:transport:)``
    /// and no `service`: `CLIENT_ID@HOST[:PORT][/PATH]` — the client ID, `@`, and the issuer without its scheme and
    /// trailing slash, such as `my-desktop-app@auth.example.com` or `app@sso.example.com:8443/realms/staff`. A keyring
    /// item is the session of one (issuer, client ID, account); a person finds it with
    /// `secret-tool search service my-desktop-app@auth.example.com`.
    public static func defaultService(issuer: URL, clientID: String) -> String {
        guard let host = issuer.host?.lowercased() else { return "\(clientID)@\(issuer.absoluteString)" }
        let port = issuer.port.map { ":\($0)" } ?? ""
        var path = issuer.path
        while path.hasSuffix("/") { path.removeLast() }
        return "\(clientID)@\(host)\(port)\(path)"
    }

    /// A session made from `configuration`.
    public init(configuration: Configuration) {
        self.init(configuration: configuration, browserEnvironment: ProcessInfo.processInfo.environment)
    }

    /// A session made from `configuration` that chooses and opens the browser as `browserEnvironment` says: a test's
    /// graphical session, whatever the test process's own environment.
    package init(configuration: Configuration, browserEnvironment: [String: String]) {
        var configuration = configuration
        // One for the whole session: its managers, its clients and its sign-ins share the keys and the nonces.
        configuration.manager.dpop = configuration.manager.dpop ?? DPoP(keys: configuration.proofKeys)
        self.configuration = configuration
        self.browserEnvironment = browserEnvironment
        chosenAccount = configuration.account
        logger = configuration.logger
    }

    deinit {
        watching?.cancel()
        for observer in observers.values { observer.finish() }
    }

    // MARK: State

    /// Where the session stands, read from the keyring now: signed out, signed in (as whom), needing a new sign-in,
    /// or a keyring that cannot be read. It never throws: every outcome is a state an app can show.
    public func state() async -> State {
        let state = await readState()
        publish(state)
        return state
    }

    /// Who is signed in, when the provider said (an OpenID Connect sign-in); `nil` when signed out or not said.
    public func currentIdentity() async -> Identity? {
        if case .signedIn(let account) = await state() { return account.identity }
        return nil
    }

    /// The state, now and after every change — a sign-in, a sign-out or a switch here, and those of other processes
    /// (another instance of the app, `tokenctl logout`), which the keyring and the items' locks announce. Each access
    /// is a stream of its own: any number of parts of the app may follow it. It starts with the current state.
    public nonisolated var states: AsyncStream<State> {
        let (stream, continuation) = AsyncStream<State>.makeStream(bufferingPolicy: .bufferingNewest(8))
        Task { await self.observe(continuation) }
        return stream
    }

    // MARK: Using the session

    /// An authorized client for the current account: it sends your requests with a valid access token, refreshing
    /// it before it expires and once after a `401`. Get it again after a sign-in or a switch; one obtained before keeps
    /// the account it was made for.
    /// - Throws: `TokenAuthError` with `isLoginRequired` when signed out; `KeyringError` when the keyring cannot be
    ///   read.
    public func client(classifier: TokenRejectionClassifier = .standard) async throws -> AuthorizedClient {
        AuthorizedClient(manager: try await manager(), transport: configuration.transport, classifier: classifier)
    }

    /// A valid access token of the current account, for a request you send yourself.
    /// - Throws: as ``client(classifier:)``, and the refresh's `TokenAuthError`.
    public func validToken() async throws -> String {
        try await manager().validToken()
    }

    /// The current account's manager, made on first use from its keyring item.
    /// - Throws: `TokenAuthError` `noCredentials` when signed out, `invalidClientConfiguration` when the item holds
    ///   tokens of another client ID (a service shared by two apps); `KeyringError`.
    public func manager() async throws -> AuthManager {
        await adoptEarlierItems()
        guard let account = try currentAccount() else {
            throw TokenAuthError.noCredentials("no account of \(configuration.service) is signed in")
        }
        if let manager = managers[account] { return manager }
        var settings = configuration.manager
        if settings.refreshHost == nil, RefreshProcess.isBootstrapped.load(ordering: .sequentiallyConsistent),
            RefreshProcess.signsWith(configuration.proofKeys)
        {
            // After `bootstrap()`: each refresh in a process of its own, which the app's death cannot reach.
            settings.refreshHost = RefreshProcess(
                service: configuration.service, account: account, clientID: configuration.clientID,
                configuration: settings, keyring: configuration.keyring)
        }
        let manager = try await AuthManager.forKeyringItem(
            service: configuration.service, account: account, clientID: configuration.clientID,
            keyring: configuration.keyring,
            transport: configuration.transport, configuration: settings,
            identityChecks: IDTokenVerifier.forStoredClient, wallClock: configuration.wallClock, logger: logger)
        managers[account] = manager
        return manager
    }
}
