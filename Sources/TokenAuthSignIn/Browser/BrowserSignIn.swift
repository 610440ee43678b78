import Foundation
import Synchronization
import TokenAuth

/// Signs a user in through the system browser: the authorization code grant with PKCE, redirected to a listener on
/// `127.0.0.1` (RFC 6749 §4.1, RFC 7636, RFC 8252), the way providers require native apps to sign in.
///
/// ```swift
/// let metadata = try await Discovery(transport: transport).metadata(forIssuer: issuer)
/// let browser = try BrowserSignIn(metadata: metadata, clientID: "my-desktop-app", transport: transport)
/// let credentials = try await browser.signIn(scope: "openid profile") { url in
///     try await SystemBrowser().open(url)   // or the app's own way to open a URL
/// }
/// try await manager.signIn(credentials.auth)   // store credentials.client with it, e.g. in KeyringAuthStore
/// ```
///
/// One sign-in:
/// 1. binds a listener on `127.0.0.1` — an ephemeral port unless ``Redirect/port`` fixes one, for servers that
///    register exact redirect URIs — and builds the redirect URI `http://127.0.0.1:PORT/PATH`;
/// 2. makes a fresh PKCE verifier (S256; `plain` is never used), a random `state` and, when the scope contains
///    `openid`, a random `nonce`, and hands the authorization URL to the app's `openBrowser` hook;
/// 3. waits for the browser to come back. Requests for other paths get a 404 and change nothing. A request on the
///    redirect path whose `state` is not this sign-in's gets a page saying so, and the wait goes on: only the
///    right `state` ends it. When the server advertises `authorization_response_iss_parameter_supported` the `iss`
///    parameter must be the issuer, and an `iss` that is present must always be (RFC 9207);
/// 4. exchanges the code with the verifier at the token endpoint, answers the browser with a page that says
///    whether the sign-in worked, and closes the listener.
///
/// The listener is closed on every way out: success, an error, the time limit (``timeLimit`` by the injected
/// clock), and cancellation of the calling task. The time limit covers the wait for the browser only: once the
/// redirect brought a code, the exchange runs to the transport's own timeout, so a granted code is never dropped.
/// Nothing is stored here: the caller stores the result, and an error leaves whatever was stored before untouched.
public struct BrowserSignIn: Sendable {
    /// Where the browser is sent back to: a port and a path on `127.0.0.1`.
    public struct Redirect: Sendable, Equatable {
        /// The port to listen on; 0 (the default) lets the system choose a free one, as RFC 8252 §7.3 recommends.
        public var port: Int
        /// The path, such as `/callback`.
        public var path: String

        /// Creates a redirect target.
        public init(port: Int = 0, path: String = "/callback") {
            self.port = port
            self.path = path
        }
    }

    /// The client that signs in, and whose identity is stored with the tokens.
    public var client: OAuthClient { tokenEndpoint.client }
    /// Where the browser is sent to authorize (RFC 6749 §3.1).
    public let authorizationEndpoint: URL
    /// The issuer identifier that an `iss` response parameter must equal, when known.
    public let issuer: String?
    /// Whether the redirect must carry `iss` (the server advertises
    /// `authorization_response_iss_parameter_supported`).
    public let requiresIssuerParameter: Bool
    /// Where the browser is sent back to.
    public let redirect: Redirect
    /// How long the user has to finish in the browser. It stops applying when the redirect brings a code: the code
    /// exchange is bounded by the transport's timeout instead.
    public let timeLimit: Duration
    /// Where the code is exchanged, through the transport the key set is fetched with too.
    private let tokenEndpoint: TokenEndpointClient
    private let clock: any Clock<Duration>

    /// Creates a browser sign-in at endpoints configured by hand.
    ///
    /// - Parameters:
    ///   - client: The token endpoint and client identity (a public client, `authentication` none, is usual).
    ///   - authorizationEndpoint: Where the browser is sent; `https`, or `http` on a loopback host.
    ///   - issuer: The issuer identifier, to check the `iss` response parameter against; `nil` skips the check.
    ///   - requiresIssuerParameter: Whether a response without `iss` is refused.
    ///   - redirect: The loopback port and path.
    ///   - timeLimit: How long the user has, from when the browser is opened; 5 minutes by default.
    ///   - transport: How the code exchange is sent. Whatever it accepts, an answer larger than
    ///     `TokenResponse.maximumSize` bytes is refused.
    ///   - clock: The clock that measures ``timeLimit``.
    ///   - wallClock: The wall clock, read for the tokens' expiry.
    ///   - dpop: Binds the tokens to a new key of its provider (DPoP, RFC 9449): its thumbprint goes with the
    ///     authorization request as `dpop_jkt`, the code exchange carries a proof, and the key is stored with the
    ///     tokens. `nil` for bearer tokens.
    /// - Throws: ``SignInError/Code/insecureEndpoint`` or ``SignInError/Code/invalidRedirect``.
    public init(
        client: OAuthClient,
        authorizationEndpoint: URL,
        issuer: String? = nil,
        requiresIssuerParameter: Bool = false,
        redirect: Redirect = Redirect(),
        timeLimit: Duration = .seconds(300),
        transport: any HTTPTransport,
        clock: any Clock<Duration> = ContinuousClock(),
        wallClock: @escaping WallClock = systemWallClock,
        dpop: DPoP? = nil
    ) throws(SignInError) {
        guard authorizationEndpoint.canCarryCredentials else { throw .insecureAuthorizationEndpoint(authorizationEndpoint) }
        guard redirect.path.hasPrefix("/"), !redirect.path.contains("?"), !redirect.path.contains("#"),
            URLComponents(string: redirect.path)?.percentEncodedPath == redirect.path
        else { throw .invalidRedirect("path \"\(redirect.path)\"") }
        guard (0...65535).contains(redirect.port) else { throw .invalidRedirect("port \(redirect.port)") }
        self.authorizationEndpoint = authorizationEndpoint
        self.issuer = issuer
        self.requiresIssuerParameter = requiresIssuerParameter
        self.redirect = redirect
        self.timeLimit = timeLimit
        tokenEndpoint = TokenEndpointClient(client: client, transport: transport, wallClock: wallClock, dpop: dpop)
        self.clock = clock
    }

    /// Creates a browser sign-in from discovered metadata.
    ///
    /// - Parameters:
    ///   - metadata: From ``Discovery/metadata(forIssuer:)``.
    ///   - clientID: The client identifier registered at the provider.
    ///   - clientSecret: The secret of a confidential client; `nil` for a public client (a desktop app).
    ///   - authentication: How to authenticate; the default follows `OAuthClient`.
    ///   - redirect: The loopback port and path.
    ///   - timeLimit: How long the user has, from when the browser is opened; 5 minutes by default.
    ///   - transport: How the code exchange (and the key set, with `openid`) is sent.
    ///   - clock: The clock that measures `timeLimit`.
    ///   - wallClock: The wall clock, read for the tokens' expiry and the `id_token`'s times.
    ///   - dpop: Binds the tokens to a new key, as for the other initializer; `nil` for bearer tokens.
    /// - Throws: ``SignInError/Code/noAuthorizationEndpoint`` when the metadata names none,
    ///   ``SignInError/Code/pkceUnsupported`` when it lists PKCE methods without S256, or
    ///   ``SignInError/Code/invalidRedirect``.
    public init(
        metadata: AuthorizationServerMetadata,
        clientID: String,
        clientSecret: String? = nil,
        authentication: OAuthClient.Authentication? = nil,
        redirect: Redirect = Redirect(),
        timeLimit: Duration = .seconds(300),
        transport: any HTTPTransport,
        clock: any Clock<Duration> = ContinuousClock(),
        wallClock: @escaping WallClock = systemWallClock,
        dpop: DPoP? = nil
    ) throws(SignInError) {
        try self.init(
            client: metadata.client(id: clientID, secret: clientSecret, authentication: authentication),
            authorizationEndpoint: Self.authorizationEndpoint(of: metadata), issuer: metadata.issuer,
            requiresIssuerParameter: metadata.authorizationResponseIssParameterSupported, redirect: redirect,
            timeLimit: timeLimit, transport: transport, clock: clock, wallClock: wallClock, dpop: dpop)
    }

    /// The authorization endpoint of `metadata`, if a browser sign-in can use it.
    ///
    /// - Throws: ``SignInError/Code/noAuthorizationEndpoint`` when the metadata names none, or
    ///   ``SignInError/Code/pkceUnsupported`` when it lists PKCE methods without S256.
    public static func authorizationEndpoint(of metadata: AuthorizationServerMetadata) throws(SignInError) -> URL {
        guard let endpoint = metadata.authorizationEndpoint else { throw .noAuthorizationEndpoint }
        let methods = metadata.codeChallengeMethodsSupported
        guard methods.isEmpty || methods.contains(PKCE.method) else { throw .pkceUnsupported(listed: methods) }
        return endpoint
    }

    /// Runs the whole sign-in: listens, calls `openBrowser` once with the authorization URL, waits for the browser
    /// to come back, and exchanges the code.
    ///
    /// - Parameters:
    ///   - scope: The scope to ask for, or `nil` for the server's default. With `openid` in it, a `nonce` is sent.
    ///   - openBrowser: The app's "open this URL" hook, such as ``SystemBrowser/open(_:)``. It runs while the
    ///     listener already waits, on its own actor: a `@MainActor` closure runs on the main actor. If it throws,
    ///     the sign-in stops with its error. Show the URL as well, for users whose browser does not open.
    ///     Cancelling the sign-in before the hook has started (its actor busy, say) ends the sign-in at once, and
    ///     the hook never runs; cancelling it while the hook runs cancels the hook's task, and the sign-in ends when
    ///     the hook returns.
    /// - Returns: The tokens with ``client`` recorded: pass `auth` to `AuthManager.signIn(_:)` and store `client`.
    /// - Throws: ``SignInError``, `TokenAuthError` from the code exchange, the hook's error, or
    ///   `CancellationError`: a sign-in cancelled before the browser is opened opens none.
    public func signIn(
        scope: String? = nil,
        openBrowser: @escaping @isolated(any) @Sendable (URL) async throws -> Void
    ) async throws -> StoredCredentials {
        try await signInReturningResponse(scope: scope, openBrowser: openBrowser).credentials
    }

    /// The sign-in, with what the identity check needs: the token response and the `nonce` sent.
    func signInReturningResponse(
        scope: String?,
        openBrowser: @escaping @isolated(any) @Sendable (URL) async throws -> Void
    ) async throws -> (credentials: StoredCredentials, response: TokenResponse, nonce: String?) {
        let started = try await begin(scope: scope)
        return try await withThrowingTaskGroup(
            of: (credentials: StoredCredentials, response: TokenResponse, nonce: String?)?.self
        ) { group in
            group.addTask { try await started.finish() }
            group.addTask {
                do {
                    // Not a plain call: a hook whose actor cannot run it yet must not keep a cancelled sign-in
                    // waiting, nor open the browser for it later.
                    try await AppHook.run(openBrowser, with: started.url)
                } catch {
                    await started.abandon()
                    // A hook that gave up because the sign-in was cancelled (SystemBrowser says `browserNotStarted`):
                    // the sign-in ends cancelled, as documented.
                    if Task.isCancelled { throw CancellationError() }
                    throw error
                }
                return nil
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let result = next { return result }
            }
            throw CancellationError()
        }
    }

    /// A browser sign-in that listens on loopback and waits for the browser: made by ``begin(scope:)``, for callers
    /// that open the browser themselves, on their own isolation, between the two steps.
    package struct Started: Sendable {
        /// The authorization URL to open in the browser.
        package let url: URL
        fileprivate let listener: LoopbackRedirectListener
        fileprivate let receive: @Sendable () async throws -> (credentials: StoredCredentials, response: TokenResponse, nonce: String?)

        /// Waits for the browser to come back (within ``BrowserSignIn/timeLimit``) and exchanges the code.
        package func finish() async throws -> (credentials: StoredCredentials, response: TokenResponse, nonce: String?) {
            try await receive()
        }

        /// Stops listening: the sign-in is given up.
        package func abandon() async {
            await listener.close()
        }
    }

    /// Binds the loopback listener and makes the authorization request: the first step of the sign-in.
    /// - Throws: `CancellationError` when the task is already cancelled (nothing is bound), ``SignInError``.
    package func begin(scope: String?) async throws -> Started {
        // A sign-in cancelled before it began binds no port and opens no browser.
        try Task.checkCancellation()
        let proofKey = try await tokenEndpoint.dpop?.keys.makeKey()
        let listener: LoopbackRedirectListener
        do {
            listener = try await LoopbackRedirectListener.bind(port: redirect.port, path: redirect.path)
        } catch {
            throw SignInError.listenerUnavailable(port: redirect.port, cause: error)
        }
        let request = AuthorizationRequest(
            endpoint: authorizationEndpoint, clientID: client.clientID, redirectURI: listener.redirectURI, scope: scope,
            proofKey: proofKey)
        let exchange = CodeExchange(
            request: request, scope: scope, issuer: issuer, requiresIssuerParameter: requiresIssuerParameter,
            endpoint: tokenEndpoint)
        let (limit, clock) = (timeLimit, self.clock)
        return Started(url: request.url, listener: listener) {
            let (credentials, response) = try await listener.receive(
                timeLimit: limit, clock: clock, timedOut: { SignInError.timedOut(after: limit) }, exchange.handle)
            return (credentials, response, request.nonce)
        }
    }
}

/// Decides about each request on the redirect path: the first with the right `state` is the answer.
private final class CodeExchange: Sendable {
    let request: AuthorizationRequest
    /// The scope asked for: with `openid`, the `id_token` is validated, and a sign-in that fails it fails as a whole.
    let scope: String?
    let issuer: String?
    let requiresIssuerParameter: Bool
    let endpoint: TokenEndpointClient
    private let answered = Mutex(false)

    typealias Outcome = (credentials: StoredCredentials, response: TokenResponse)

    init(
        request: AuthorizationRequest, scope: String?, issuer: String?, requiresIssuerParameter: Bool,
        endpoint: TokenEndpointClient
    ) {
        self.request = request
        self.scope = scope
        self.issuer = issuer
        self.requiresIssuerParameter = requiresIssuerParameter
        self.endpoint = endpoint
    }

    func handle(_ redirect: LoopbackRedirectListener.Request) async -> LoopbackRedirectListener.Decision<Outcome> {
        let response = AuthorizationResponse(
            redirect, state: request.state, issuer: issuer, requiresIssuerParameter: requiresIssuerParameter)
        if case .otherState = response { return .keepWaiting(.unexpected) }
        let first = answered.withLock { answered in
            defer { answered = true }
            return !answered
        }
        guard first else { return .keepWaiting(.alreadyAnswered) }
        switch response {
        case .otherState:
            return .keepWaiting(.unexpected)
        case .refused(let error):
            return fail(error)
        case .code(let code):
            // The code is in hand: the exchange runs to its own end, outside the sign-in's time limit.
            return .answer { await self.exchange(code) }
        }
    }

    private func exchange(_ code: String) async -> (RedirectPage, Result<Outcome, any Error>) {
        do {
            let response = try await endpoint.authorizationCode(
                code, redirectURI: request.redirectURI, codeVerifier: request.pkce.verifier, proofKey: request.proofKey)
            let credentials = try await endpoint.credentials(
                from: response, scope: scope, nonce: request.nonce, proofKey: request.proofKey)
            return (.signedIn(as: credentials.auth.identity?.displayName), .success((credentials, response)))
        } catch {
            return failure(error)
        }
    }

    private func fail(_ error: any Error) -> LoopbackRedirectListener.Decision<Outcome> {
        let (page, outcome) = failure(error)
        return .finish(page, outcome)
    }

    private func failure(_ error: any Error) -> (RedirectPage, Result<Outcome, any Error>) {
        let problem: String
        let advice: String
        switch error {
        case let error as SignInError where error.concernsIdentity:
            problem = "The app could not confirm who signed in: \(error.description)"
            advice = "Go back to the app and sign in again."
        case let error as SignInError:
            problem = error.reason
            advice = error.fix
        case let error as TokenAuthError:
            problem = "The app could not complete the sign-in with the provider: \(error.description)"
            advice = "Go back to the app and sign in again."
        default:
            problem = "The app could not complete the sign-in."
            advice = "Go back to the app and sign in again."
        }
        return (.failed(problem, advice: advice), .failure(error))
    }
}
