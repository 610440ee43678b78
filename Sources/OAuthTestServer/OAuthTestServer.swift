import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// A real OAuth 2.0 authorization server and protected resource on loopback, for tests and demos.
///
/// ```swift
/// let server = try await OAuthTestServer.start()
/// defer { Task { await server.shutdown() } }
/// // POST server.tokenEndpoint, GET server.resourceURL, read server.stats …
/// ```
///
/// Endpoints: `POST /token` (see ``Configuration`` for clients, users and token lifetimes), `POST /revoke`
/// (RFC 7009), `/resource` and below (bearer- or DPoP-protected; `/resource/admin` needs the `admin` scope), `/public`,
/// `/redirect?to=URL`, OpenID Connect's `GET /jwks` and `/userinfo` (with an `id_token` in every token response whose
/// scope includes `openid`; see ``OpenIDSettings``), the browser flow's `GET /authorize` (``BrowserFlowSettings``),
/// the device flow's `POST /device_authorization` with its verification page `/device`, where a person or a test
/// approves or denies a user code (``deviceVerificationPage``), and `/_admin/…` to read ``Stats``, set ``Faults``
/// and decide device codes from another process. Each server has its own tokens and counters, so tests that each
/// start one can run in parallel.
package final class OAuthTestServer: Sendable {
    /// The configuration the server was started with.
    package let configuration: Configuration
    /// The port the server listens on: the one the system chose when the configuration asked for port 0.
    package let port: Int

    let state: ServerState
    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, Never>

    private init(
        configuration: Configuration,
        port: Int,
        state: ServerState,
        serviceGroup: ServiceGroup,
        runTask: Task<Void, Never>
    ) {
        self.configuration = configuration
        self.port = port
        self.state = state
        self.serviceGroup = serviceGroup
        self.runTask = runTask
    }

    /// How long ``shutdown()`` lets requests in flight finish before cutting them off.
    package static let shutdownGracePeriod = Duration.milliseconds(500)

    /// Starts a server and returns once it accepts connections.
    ///
    /// - Parameters:
    ///   - configuration: Clients, users, token lifetimes, the clock and where to listen.
    ///   - logLevel: The least severe server log message written (to the process's log handler).
    /// - Throws: The error that kept the server from listening, for example a port already in use.
    package static func start(
        _ configuration: Configuration = Configuration(),
        logLevel: LogLevel = .warning
    ) async throws -> OAuthTestServer {
        let state = ServerState(configuration: configuration)
        var logger = Logger(label: "oauth-test-server")
        logger.logLevel = logLevel.loggerLevel
        let (ports, portContinuation) = AsyncThrowingStream<Int, any Error>.makeStream()
        let application = Application(
            responder: Dispatcher(state: state),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? configuration.port)
            },
            logger: logger
        )
        var groupConfiguration = ServiceGroupConfiguration(services: [application], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = shutdownGracePeriod
        let serviceGroup = ServiceGroup(configuration: groupConfiguration)
        let runTask = Task {
            do {
                try await serviceGroup.run()
                portContinuation.finish()
            } catch {
                portContinuation.finish(throwing: error)
            }
        }
        do {
            var iterator = ports.makeAsyncIterator()
            guard let port = try await iterator.next() else { throw StartupError() }
            return OAuthTestServer(
                configuration: configuration,
                port: port,
                state: state,
                serviceGroup: serviceGroup,
                runTask: runTask
            )
        } catch {
            runTask.cancel()
            await runTask.value
            throw error
        }
    }

    /// Releases held token and resource answers, stops listening, lets requests in flight finish for up to
    /// ``shutdownGracePeriod``, then closes every connection. Calling it again does nothing.
    package func shutdown() async {
        releaseTokenAnswers()
        releaseResourceAnswers()
        await serviceGroup.triggerGracefulShutdown()
        await runTask.value
    }

    // MARK: - Addresses

    /// `http://HOST:PORT` with no trailing slash.
    package var baseURL: URL {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return URL(string: "http://\(host):\(port)")!
    }

    /// The token endpoint, `/token`.
    package var tokenEndpoint: URL { url("/token") }

    /// The protected resource, `/resource`.
    package var resourceURL: URL { url("/resource") }

    /// The resource that needs the `admin` scope, `/resource/admin`.
    package var adminResourceURL: URL { url("/resource/admin") }

    /// The unauthenticated resource, `/public`.
    package var publicURL: URL { url("/public") }

    /// A URL on this server that redirects to `target` with `status` (301, 302, 303, 307 or 308), whatever the
    /// request's method.
    package func redirectURL(to target: URL, status: Int = 307) -> URL {
        var components = URLComponents(url: url("/redirect"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "to", value: target.absoluteString)]
        if status != 307 { components.queryItems?.append(URLQueryItem(name: "status", value: "\(status)")) }
        return components.url!
    }

    /// The URL of `path` (which starts with `/`) on this server.
    package func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + path)!
    }

    // MARK: - Inspection and control

    /// The counters so far.
    package var stats: Stats { state[\.stats] }

    /// Sets every counter back to zero.
    package func resetStats() {
        state[\.stats] = Stats()
    }

    /// The faults still pending. Setting it replaces them all.
    package var faults: Faults {
        get { state[\.faults] }
        set { state[\.faults] = newValue }
    }

    /// Changes the pending faults in place, for example `server.updateFaults { $0.serverErrors = 2 }`.
    package func updateFaults(_ update: (inout Faults) -> Void) {
        state.withLock { update(&$0.faults) }
    }

    /// Revokes every access token issued so far, so the next request with any of them gets `401 invalid_token`.
    /// Refresh tokens stay valid.
    ///
    /// - Returns: How many tokens were live before.
    @discardableResult
    package func revokeAllAccessTokens() -> Int {
        state.withLock { $0.ledger.revokeAllAccessTokens() }
    }

    /// The subject `token` — an access or refresh token this server issued — belongs to, whether or not it is still
    /// valid; `nil` for a token it never issued.
    package func subject(ofToken token: String) -> String? {
        state.withLock { $0.ledger.subject(of: token) }
    }

    /// The most recent requests outside `/_admin`, oldest first, at most ``Configuration/recordedRequestLimit``.
    package var recordedRequests: [RecordedRequest] { state[\.recordedRequests] }

    /// Issues tokens without a token request, as if a grant had happened: for seeding a store in tests.
    ///
    /// Counts nothing in ``stats``. The tokens behave exactly like those from `POST /token`: the refresh token
    /// rotates and is subject to reuse detection; with `dpopThumbprint` (an RFC 7638 thumbprint, ``JWKThumbprint``)
    /// they are bound to that DPoP key, as a grant with its proof binds them.
    package func issueTokens(
        clientID: String,
        subject: String,
        scope: String? = nil,
        withRefreshToken: Bool = true,
        dpopThumbprint: String? = nil
    ) -> IssuedTokens {
        let issued = state.withLock {
            $0.ledger.issue(
                subject: subject,
                clientID: clientID,
                scope: scope,
                withRefreshToken: withRefreshToken,
                now: configuration.clock(),
                lifetime: configuration.accessTokenLifetime,
                jkt: dpopThumbprint
            )
        }
        return IssuedTokens(
            accessToken: issued.accessToken,
            refreshToken: issued.refreshToken,
            scope: issued.scope,
            expiresAt: issued.expiresAt
        )
    }

    /// The server stopped before it reported a listening socket.
    struct StartupError: Error, CustomStringConvertible {
        var description: String { "The OAuth test server stopped before it started listening." }
    }
}
