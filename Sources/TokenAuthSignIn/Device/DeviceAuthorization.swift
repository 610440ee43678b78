import Foundation
import HTTPTypes
import TokenAuth

/// Signs in with the device authorization grant (RFC 8628): the app shows a short code and a URL, the user approves
/// on any device with a browser, and the app gets tokens — no browser or redirect URI on this machine.
///
/// ```swift
/// let metadata = try await Discovery(transport: transport).metadata(forIssuer: issuer)
/// let device = try DeviceAuthorization(metadata: metadata, clientID: "my-desktop-app", transport: transport)
/// let credentials = try await device.signIn(scope: "read") { prompt in
///     print("Open \(prompt.verificationURI) and enter \(prompt.userCode)")
/// }
/// try await manager.signIn(credentials.auth)   // store credentials.client with it, e.g. in KeyringAuthStore
/// ```
///
/// The flow requests a device code, hands the ``Prompt`` to the app's hook, then polls the token endpoint:
/// - first after the server's `interval` (5 s when it names none), then at that interval;
/// - `authorization_pending` → keeps polling; `slow_down` → adds 5 s to the interval for the rest of the flow, or
///   takes the interval the answer names when that is longer (GitHub's), up to ``maximumInterval``;
/// - `access_denied` → ``SignInError/Code/denied``; `expired_token` →
///   ``SignInError/Code/codeExpired``;
/// - a transient failure (no answer, 5xx) → keeps polling, doubling the wait for each failure in a row;
/// - any other token endpoint error (such as `invalid_client`) → thrown as the `TokenAuthError`;
/// - gives up with ``SignInError/Code/codeExpired`` rather than poll at or after `expires_in` (or rethrows the
///   last transient failure, if the last poll had one).
///
/// The server's numbers are bounded where they are read: `interval` to ``minimumInterval``…``maximumInterval``, and
/// the device code's `expires_in` to at most ``maximumCodeLifetime``, so no server can make the client poll in a
/// busy loop or wait for hours. Every wait goes through the injected `Clock`, so tests run the whole flow without
/// waiting in real time. Cancel the calling task to stop (for example when the user closes the dialog): the flow
/// throws `CancellationError`.
public struct DeviceAuthorization: Sendable {
    /// The shortest wait between polls: 1 s. A smaller positive `interval` is raised to it, so a server cannot make
    /// the client poll in a busy loop (zero, negative or absent means RFC 8628's default of 5 s).
    public static let minimumInterval = Duration.seconds(1)
    /// The longest wait between polls while the server answers: 60 s, `slow_down` increments included. A larger
    /// `interval` is lowered to it: the user is waiting to be signed in, and a minute is already slow.
    public static let maximumInterval = Duration.seconds(60)
    /// The longest a device code is waited for: 1 hour. A larger `expires_in` is lowered to it, so a server cannot
    /// keep the flow polling for days; real codes live 10 to 30 minutes.
    public static let maximumCodeLifetime = Duration.seconds(3600)

    /// What the app shows the user: where to go and the code to enter there (RFC 8628 §3.3).
    public struct Prompt: Sendable, Equatable, CustomStringConvertible {
        /// The code the user enters, such as `WDJB-MJHT`. Show it exactly as given.
        public let userCode: String
        /// The page where the user enters ``userCode``. Show it; it is short enough to type.
        public let verificationURI: URL
        /// ``verificationURI`` with the code already in it, when the server gave one: good for a QR code or a
        /// link. Show ``userCode`` as well, so the user can check it (RFC 8628 §3.3.1).
        public let verificationURIComplete: URL?
        /// How long the code stays valid from when it was requested (`expires_in`, at most
        /// ``DeviceAuthorization/maximumCodeLifetime``).
        public let expiresIn: Duration

        /// Creates a prompt.
        public init(userCode: String, verificationURI: URL, verificationURIComplete: URL? = nil, expiresIn: Duration) {
            self.userCode = userCode
            self.verificationURI = verificationURI
            self.verificationURIComplete = verificationURIComplete
            self.expiresIn = expiresIn
        }

        /// An instruction for a person, e.g. "Open https://example.com/device and enter WDJB-MJHT."
        public var description: String {
            "Open \(verificationURI.absoluteString) and enter \(userCode)."
        }
    }

    /// The client that signs in, and whose identity is stored with the tokens.
    public var client: OAuthClient { tokenEndpoint.client }
    /// The device authorization endpoint (RFC 8628 §3.1).
    public let deviceAuthorizationEndpoint: URL
    /// The token endpoint that is polled, through the transport both endpoints are asked with.
    private let tokenEndpoint: TokenEndpointClient
    private let clock: any Clock<Duration>

    /// Creates a device sign-in for `client` at an endpoint configured by hand.
    ///
    /// - Parameters:
    ///   - client: The token endpoint and client identity (a public client, `authentication` none, is usual).
    ///   - deviceAuthorizationEndpoint: Where device codes are requested.
    ///   - transport: How requests are sent, to both endpoints. Whatever it accepts, an answer larger than
    ///     `TokenResponse.maximumSize` bytes is refused.
    ///   - clock: The clock every wait between polls goes through.
    ///   - wallClock: The wall clock, read for the tokens' expiry.
    ///   - dpop: Binds the tokens to a new key of its provider (DPoP, RFC 9449): the polls carry proofs, and the key
    ///     is stored with the tokens. `nil` for bearer tokens.
    public init(
        client: OAuthClient,
        deviceAuthorizationEndpoint: URL,
        transport: any HTTPTransport,
        clock: any Clock<Duration> = ContinuousClock(),
        wallClock: @escaping WallClock = systemWallClock,
        dpop: DPoP? = nil
    ) {
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        tokenEndpoint = TokenEndpointClient(client: client, transport: transport, wallClock: wallClock, dpop: dpop)
        self.clock = clock
    }

    /// Creates a device sign-in from discovered metadata.
    ///
    /// - Parameters:
    ///   - metadata: From ``Discovery/metadata(forIssuer:)``.
    ///   - clientID: The client identifier registered at the provider.
    ///   - clientSecret: The secret of a confidential client; `nil` for a public client.
    ///   - authentication: How to authenticate; the default follows `OAuthClient`.
    ///   - transport: As for ``init(client:deviceAuthorizationEndpoint:transport:clock:wallClock:dpop:)``.
    ///   - clock: As for ``init(client:deviceAuthorizationEndpoint:transport:clock:wallClock:dpop:)``.
    ///   - wallClock: As for ``init(client:deviceAuthorizationEndpoint:transport:clock:wallClock:dpop:)``.
    ///   - dpop: As for ``init(client:deviceAuthorizationEndpoint:transport:clock:wallClock:dpop:)``.
    /// - Throws: ``SignInError/Code/missingEndpoint`` when the metadata names no `device_authorization_endpoint`.
    public init(
        metadata: AuthorizationServerMetadata,
        clientID: String,
        clientSecret: String? = nil,
        authentication: OAuthClient.Authentication? = nil,
        transport: any HTTPTransport,
        clock: any Clock<Duration> = ContinuousClock(),
        wallClock: @escaping WallClock = systemWallClock,
        dpop: DPoP? = nil
    ) throws(SignInError) {
        guard let endpoint = metadata.deviceAuthorizationEndpoint else {
            throw .missingEndpoint("device_authorization_endpoint", at: nil)
        }
        self.init(
            client: metadata.client(id: clientID, secret: clientSecret, authentication: authentication),
            deviceAuthorizationEndpoint: endpoint, transport: transport, clock: clock, wallClock: wallClock, dpop: dpop)
    }

    /// Runs the whole flow: requests a code, calls `prompt` once with what to show, and polls until the user
    /// decides or the code expires.
    ///
    /// - Parameters:
    ///   - scope: The scope to ask for, or `nil` for the server's default.
    ///   - prompt: The app's "show this code" hook, run on its own actor: a `@MainActor` closure runs on the main
    ///     actor. Polling starts when it returns; if it throws, the flow stops with its error. Cancelling the
    ///     sign-in before the hook has started (its actor busy, say) ends the sign-in at once, and the hook never
    ///     runs; cancelling it while the hook runs cancels the hook's task, and the sign-in ends when the hook
    ///     returns.
    /// - Returns: The tokens with ``client`` recorded: pass `auth` to `AuthManager.signIn(_:)` and store `client`.
    /// - Throws: ``SignInError`` (declined, expired), `TokenAuthError` (the endpoints' failures), the hook's error, or
    ///   `CancellationError`: a sign-in cancelled before its code is shown shows none.
    public func signIn(
        scope: String? = nil,
        prompt: @escaping @isolated(any) @Sendable (Prompt) async throws -> Void
    ) async throws -> StoredCredentials {
        try await run(scope: scope, prompt: prompt, clock: self.clock)
    }

    private func run<C: Clock>(
        scope: String?,
        prompt: @escaping @isolated(any) @Sendable (Prompt) async throws -> Void,
        clock: C
    ) async throws -> StoredCredentials where C.Duration == Swift.Duration {
        // One key for the flow, made before a code is shown: a key that cannot be made fails before the user acts.
        let proofKey = try await tokenEndpoint.dpop?.keys.makeKey()
        let requestedAt = clock.now
        let code = try await requestDeviceCode(scope: scope)
        // Not a plain call: a hook whose actor cannot run it yet must not keep a cancelled sign-in waiting, nor
        // show its code later.
        try await AppHook.run(prompt, with: code.prompt)
        return try await poll(code, requestedAt: requestedAt, scope: scope, clock: clock, proofKey: proofKey)
    }

    /// A device code requested, with what to show: made by ``begin(scope:)``, for callers that show the code
    /// themselves, on their own isolation, between the two steps.
    package struct Started: Sendable {
        /// What to show the user.
        package var prompt: Prompt { code.prompt }
        fileprivate let code: DeviceCode
        fileprivate let poll: @Sendable () async throws -> StoredCredentials

        /// Polls until the user decides or the code expires.
        package func finish() async throws -> StoredCredentials { try await poll() }
    }

    /// Requests a device code: the first step of the sign-in.
    package func begin(scope: String?) async throws -> Started {
        try Task.checkCancellation()
        return try await started(scope: scope, clock: self.clock)
    }

    private func started<C: Clock>(scope: String?, clock: C) async throws -> Started where C.Duration == Swift.Duration {
        let proofKey = try await tokenEndpoint.dpop?.keys.makeKey()
        let requestedAt = clock.now
        let code = try await requestDeviceCode(scope: scope)
        return Started(code: code) {
            try await self.poll(code, requestedAt: requestedAt, scope: scope, clock: clock, proofKey: proofKey)
        }
    }

    /// Polls the token endpoint for `code`, requested at `requestedAt`, until the user decides or it expires; every
    /// poll proves `proofKey`, when there is one, and the tokens are bound to it.
    private func poll<C: Clock>(
        _ code: DeviceCode, requestedAt: C.Instant, scope: String?, clock: C, proofKey: ProofKey?
    ) async throws -> StoredCredentials where C.Duration == Swift.Duration {
        var schedule = DevicePollSchedule(interval: code.interval, lifetime: code.prompt.expiresIn)
        var lastFailure: TokenAuthError?
        while true {
            guard let wait = schedule.nextWait(elapsed: requestedAt.duration(to: clock.now)) else {
                throw lastFailure ?? SignInError.codeExpired(nil, lifetime: schedule.lifetime)
            }
            try await clock.sleep(for: wait)
            do {
                let response = try await tokenEndpoint.deviceCode(code.deviceCode, proofKey: proofKey)
                return try await tokenEndpoint.credentials(from: response, scope: scope, nonce: nil, proofKey: proofKey)
            } catch let error as TokenAuthError {
                lastFailure = nil
                switch error.oauthErrorCode {
                case "authorization_pending":
                    schedule.record(.pending)
                case "slow_down":
                    let named = error.oauthError?.extras["interval"].flatMap(Int.init).map { Duration.seconds($0) }
                    schedule.record(.slowDown(interval: named))
                case "access_denied":
                    throw SignInError.deviceDenied(error)
                case "expired_token":
                    throw SignInError.codeExpired(error, lifetime: schedule.lifetime)
                default:
                    guard error.isTransient else { throw error }
                    schedule.record(.transientFailure)
                    lastFailure = error
                }
            }
        }
    }

    /// A device authorization response (RFC 8628 §3.2), with the device code kept out of the prompt.
    struct DeviceCode: Sendable {
        var deviceCode: String
        var prompt: Prompt
        var interval: Duration?
    }

    /// Sends the device authorization request (RFC 8628 §3.1) and reads the answer.
    private func requestDeviceCode(scope: String?) async throws -> DeviceCode {
        let post = OAuthFormPost(
            Self.endpointName, endpoint: deviceAuthorizationEndpoint, client: client, transport: tokenEndpoint.transport)
        let (status, body) = try await post.send(scope.map { [(name: "scope", value: $0)] } ?? [], secrets: [])
        return try Self.interpret(body, status: status)
    }

    /// The endpoint's name in errors.
    private static let endpointName = "device authorization endpoint"

    /// Reads a 2xx answer of the device authorization endpoint (RFC 8628 §3.2): every member checked and every
    /// number bounded here, where it enters. Internal, not private: the `device-authorization` fuzz target calls it.
    ///
    /// - Throws: ``SignInError/Code/unusableDeviceAnswer`` for an answer without a usable device code, user code,
    ///   verification URI or lifetime.
    static func interpret(_ body: Data, status: Int) throws(SignInError) -> DeviceCode {
        // A 2xx answer that is no device authorization: the endpoint or client is wrong, and asking again would
        // meet the same answer.
        func malformed(_ problem: String) -> SignInError { .unusableDeviceAnswer(problem, status: status) }
        guard body.count <= TokenResponse.maximumSize else { throw malformed("its answer is too large") }
        let answer: DeviceAuthorizationBody
        do {
            answer = try JSONDecoder().decode(DeviceAuthorizationBody.self, from: body)
        } catch {
            throw malformed("its answer is not a JSON object")
        }
        guard let deviceCode = answer.deviceCode, !deviceCode.isEmpty else { throw malformed("its answer has no device_code") }
        guard let userCode = answer.userCode, !userCode.isEmpty else { throw malformed("its answer has no user_code") }
        guard let verificationURI = answer.verificationURI.flatMap(URL.init(string:)),
            !(verificationURI.host ?? "").isEmpty  // `https://e@/device` has a host, and it is empty
        else {
            throw malformed("its answer has no usable verification_uri")
        }
        guard let expiresIn = answer.expiresIn else { throw malformed("its answer has no positive expires_in") }
        return DeviceCode(
            deviceCode: deviceCode,
            prompt: Prompt(
                userCode: userCode,
                verificationURI: verificationURI,
                verificationURIComplete: answer.verificationURIComplete.flatMap(URL.init(string:)),
                expiresIn: expiresIn),
            interval: answer.interval)
    }
}

/// The members of a device authorization response (RFC 8628 §3.2), each decoded leniently: a member of the wrong
/// type reads as absent. Numbers may come as JSON numbers or numeric strings, and are bounded here.
private struct DeviceAuthorizationBody: Decodable {
    var deviceCode: String?
    var userCode: String?
    var verificationURI: String?
    var verificationURIComplete: String?
    /// At most ``DeviceAuthorization/maximumCodeLifetime``; `nil` when absent, not positive or not a number.
    var expiresIn: Duration?
    /// Within ``DeviceAuthorization/minimumInterval``…``DeviceAuthorization/maximumInterval``; `nil` when absent,
    /// not positive or not a number.
    var interval: Duration?

    private enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
        case interval
    }

    /// Members that providers send under names of their own.
    private enum ProviderNames: String, CodingKey {
        /// Google's `verification_uri` (https://developers.google.com/identity/protocols/oauth2/limited-input-device).
        case verificationURL = "verification_url"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        deviceCode = try? container.decodeIfPresent(String.self, forKey: .deviceCode)
        userCode = try? container.decodeIfPresent(String.self, forKey: .userCode)
        verificationURI = (try? container.decodeIfPresent(String.self, forKey: .verificationURI))
            ?? (try? decoder.container(keyedBy: ProviderNames.self).decodeIfPresent(String.self, forKey: .verificationURL))
        verificationURIComplete = try? container.decodeIfPresent(String.self, forKey: .verificationURIComplete)
        expiresIn = container.positiveSeconds(forKey: .expiresIn, within: .zero...DeviceAuthorization.maximumCodeLifetime)
        interval = container.positiveSeconds(
            forKey: .interval, within: DeviceAuthorization.minimumInterval...DeviceAuthorization.maximumInterval)
    }
}
