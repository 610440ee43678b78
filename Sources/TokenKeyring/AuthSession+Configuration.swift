#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import Logging
import TokenAuth
import TokenAuthSignIn
import TokenAuthURLSession

extension AuthSession {
    /// Where the provider's endpoints come from.
    public enum Provider: Sendable {
        /// Its issuer URL: the endpoints are discovered from its published metadata (RFC 8414, OpenID Connect
        /// Discovery), and an `id_token` is checked against its keys.
        case issuer(URL)
        /// Endpoints configured by hand, for a provider that publishes no metadata: no identity is checked then.
        case endpoints(Endpoints)
    }

    /// A provider's endpoints, configured by hand.
    public struct Endpoints: Sendable {
        /// The token endpoint.
        public var token: URL
        /// The authorization endpoint, for the browser sign-in.
        public var authorization: URL?
        /// The device authorization endpoint, for the device flow.
        public var deviceAuthorization: URL?
        /// The revocation endpoint (RFC 7009), for sign-out.
        public var revocation: URL?

        /// Creates endpoints.
        public init(token: URL, authorization: URL? = nil, deviceAuthorization: URL? = nil, revocation: URL? = nil) {
            self.token = token
            self.authorization = authorization
            self.deviceAuthorization = deviceAuthorization
            self.revocation = revocation
        }

        /// The metadata these endpoints make, named after the token endpoint's origin.
        var metadata: AuthorizationServerMetadata {
            var origin = URLComponents(url: token, resolvingAgainstBaseURL: false) ?? URLComponents()
            origin.path = ""
            origin.query = nil
            return AuthorizationServerMetadata(
                issuer: origin.url?.absoluteString ?? token.absoluteString, tokenEndpoint: token,
                authorizationEndpoint: authorization, revocationEndpoint: revocation,
                deviceAuthorizationEndpoint: deviceAuthorization)
        }
    }

    /// Everything a session is made from. The defaults suit a desktop app.
    public struct Configuration: Sendable {
        /// Where the provider's endpoints come from.
        public var provider: Provider
        /// The app's client ID at the provider.
        public var clientID: String
        /// The client secret of a confidential client; `nil` (the default) for a public one — a desktop app cannot
        /// keep a secret.
        public var clientSecret: String?
        /// The scope to ask for at sign-in; `openid` makes the provider say who signed in.
        public var scope: String?
        /// The keyring items' `service` attribute.
        public var service: String
        /// The account to work on; `nil` (the default) for the service's default account, or its only one.
        public var account: String?
        /// The Secret Service client: timeouts and prompts.
        public var keyring: Keyring
        /// How every request is sent.
        public var transport: any HTTPTransport
        /// The managers' settings (leeway, refresh limits, backoff, window guards); a logind delay lock is added.
        public var manager: AuthManager.Configuration
        /// The browser sign-in's loopback redirect: a fixed port and path for providers that register exact redirect
        /// URIs.
        public var redirect: BrowserSignIn.Redirect
        /// How long the user has in the browser.
        public var browserTimeLimit: Duration
        /// With ``AuthSession/SignInMethod/automatic``: how long the browser has to come back before the device flow's
        /// code is shown too — a browser command may start and open nothing. The browser can still finish after that;
        /// whichever comes back first signs in. `nil` waits for the browser alone. Default 30 s.
        public var browserFallback: Duration?
        /// The clock of the session's waits: the browser's fallback, and the second after which ``AuthSession/states``
        /// says that the keyring has not answered yet.
        public var clock: any Clock<Duration>
        /// The wall clock, for expiry.
        public var wallClock: WallClock
        /// Where the session and its managers log (routine events at debug level); never a secret.
        public var logger: Logger
        /// Whether sign-ins bind the tokens to a key (DPoP): by default when the issuer supports it.
        public var proofOfPossession: ProofOfPossession
        /// Where the keys of bound sessions are made and used: by default `MachineProofKeys()`, which makes each
        /// key in the TPM where one can be used (it never leaves it) and otherwise in software, stored with the
        /// tokens, and signs with a stored key of either kind. The managers sign with it
        /// (`AuthManager.Configuration.dpop`) unless ``manager`` already has a `dpop`. After
        /// ``AuthSession/bootstrap()`` refreshes run in a process of their own, which signs with `MachineProofKeys()`
        /// of its environment: with another provider (a kind of key of your own, another TPM) they run in the app's
        /// process instead.
        public var proofKeys: any ProofKeyProvider
        /// The earlier default service (the issuer's host) whose items this session adopts when they record its
        /// client ID and issuer; set by the initializer that chooses the default service.
        var adoptsItemsOf: String?

        /// Creates a configuration.
        public init(
            provider: Provider,
            clientID: String,
            clientSecret: String? = nil,
            scope: String? = "openid",
            service: String,
            account: String? = nil,
            keyring: Keyring = Keyring(),
            transport: any HTTPTransport = URLSessionHTTPTransport(maximumResponseBodySize: TokenResponse.maximumSize),
            manager: AuthManager.Configuration = AuthManager.Configuration(),
            redirect: BrowserSignIn.Redirect = BrowserSignIn.Redirect(),
            browserTimeLimit: Duration = .seconds(300),
            browserFallback: Duration? = .seconds(30),
            clock: any Clock<Duration> = ContinuousClock(),
            wallClock: @escaping WallClock = systemWallClock,
            logger: Logger = Logger(label: "TokenKeyring.AuthSession"),
            proofOfPossession: ProofOfPossession = .automatic,
            proofKeys: (any ProofKeyProvider)? = nil
        ) {
            self.provider = provider
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.scope = scope
            self.service = service
            self.account = account
            self.keyring = keyring
            self.transport = transport
            self.manager = manager
            self.redirect = redirect
            self.browserTimeLimit = browserTimeLimit
            self.browserFallback = browserFallback
            self.clock = clock
            self.wallClock = wallClock
            self.logger = logger
            self.proofOfPossession = proofOfPossession
            self.proofKeys = proofKeys ?? MachineProofKeys(wallClock: wallClock)
        }
    }
}
