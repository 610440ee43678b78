import Foundation
import HTTPTypes
import OAuthTestServer
import OAuthTestSupport
@testable import TokenAuth
import TokenAuthTesting

/// A real OAuth server on loopback, one real `URLSessionTransport` shared by the token client and the
/// authorized client, and a wall clock the test controls.
struct NetworkingFixture {
    let base: RefreshFixture
    let transport = URLSessionTransport()

    var server: OAuthTestServer { base.server }
    var clock: ManualWallClock { base.clock }

    /// Runs `body` with a fixture on a new server, and awaits the server's shutdown afterwards, also when `body`
    /// throws.
    static func with(
        _ configuration: OAuthTestServer.Configuration = .init(), _ body: (NetworkingFixture) async throws -> Void
    ) async throws {
        try await RefreshFixture.with(configuration) { try await body(NetworkingFixture(base: $0)) }
    }

    /// A session the server issued, seen by the client as expiring in `expiresIn` seconds (negative: expired).
    func seed(expiresIn: TimeInterval) -> Auth {
        base.seed(expiresIn: expiresIn)
    }

    /// A manager over `store` whose token client uses the shared transport.
    func manager(store: any AuthStore) -> AuthManager {
        AuthManager(
            store: store,
            refresher: TokenEndpointClient(client: base.client, transport: transport, wallClock: clock.wallClock),
            configuration: .init(backoff: Backoff(jitter: false)),
            wallClock: clock.wallClock)
    }

    /// An authorized client over a manager seeded with `auth` (or an empty store).
    func client(
        _ auth: Auth?,
        classifier: TokenRejectionClassifier = .standard,
        transport: (any HTTPTransport)? = nil
    ) -> (AuthorizedClient, InMemoryAuthStore) {
        let store = InMemoryAuthStore(auth)
        let client = AuthorizedClient(manager: manager(store: store), transport: transport ?? self.transport, classifier: classifier)
        return (client, store)
    }

    /// The `Authorization` headers the server saw on `/resource` requests, oldest first.
    var resourceAuthorizations: [String?] {
        server.recordedRequests.filter { $0.uri.hasPrefix("/resource") }.map { $0.header("authorization") }
    }
}

/// The JSON echo of `/resource`.
struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let body: String
    let bodyBase64: String
    let tokenSubject: String
}

extension JSONDecoder {
    static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
