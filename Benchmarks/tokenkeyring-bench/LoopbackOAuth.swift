import Foundation
import HTTPTypes
import Keyring
import OAuthTestServer
import TokenAuth
import TokenAuthURLSession
import TokenAuthKeyring

/// The local OAuth server on 127.0.0.1 and what a client needs to use it: the figures that make HTTP requests
/// share one of these. The server runs in this process, so its work counts against the same cores on both
/// sides of every ratio.
struct LoopbackOAuth: Sendable {
    static let clientID = "test-client"
    /// The user whose tokens the figures use, and the account of their keyring items.
    static let user = "alice"

    let server: OAuthTestServer
    let client: OAuthClient
    /// One URLSession for the token client and the requests, as the library's docs recommend.
    let transport: URLSessionHTTPTransport

    static func start() async throws -> LoopbackOAuth {
        let server = try await OAuthTestServer.start(.init(host: "127.0.0.1"))
        return LoopbackOAuth(
            server: server,
            client: OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: clientID),
            transport: URLSessionHTTPTransport())
    }

    /// Tokens the server issued; the client sees them as expired a minute ago, or valid for an hour.
    func session(expired: Bool) -> Auth {
        let issued = server.issueTokens(clientID: Self.clientID, subject: Self.user)
        return Auth(
            accessToken: issued.accessToken,
            refreshToken: issued.refreshToken,
            expiresAt: expired ? Date(timeIntervalSinceNow: -60) : Date(timeIntervalSinceNow: 3600))
    }

    /// The keyring store of ``user``'s tokens under `service`, refreshing at the local server.
    func store(service: String, keyring: Keyring) -> KeyringAuthStore {
        KeyringAuthStore(service: service, account: Self.user, client: client, keyring: keyring)
    }

    /// A manager over an in-memory store holding `auth`, refreshing at the local server.
    func manager(_ auth: Auth) -> AuthManager {
        AuthManager(
            store: InMemoryAuthStore(auth),
            refresher: TokenEndpointClient(client: client, transport: transport))
    }

    /// `GET /resource`, the protected resource.
    var resourceRequest: HTTPRequest { HTTPRequest(method: .get, url: server.resourceURL) }

    func shutdown() async { await server.shutdown() }
}

/// Counts the requests of a batch that did not end in a 2xx, keeping one example for the report.
struct Outcomes: Sendable {
    var failures = 0
    var example: String?

    mutating func record(_ result: Result<Int, any Error>) {
        switch result {
        case .success(let status) where (200..<300).contains(status): return
        case .success(let status): example = example ?? "HTTP \(status)"
        case .failure(let error): example = example ?? "\(error)"
        }
        failures += 1
    }

    mutating func merge(_ other: Outcomes) {
        failures += other.failures
        example = example ?? other.example
    }
}
