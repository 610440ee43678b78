import Foundation
import HTTPTypes
import Keyring
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthURLSession
import TokenAuthSignIn
import TokenAuthKeyring

/// Everything the library says at trace level — log lines, events, error descriptions — over a whole session
/// with the real keyring and a real OAuth server, checked for every secret the session handled.
@Suite("Logs, events and errors never carry a secret", .needsSecretService)
struct SecretFreeLoggingTests {
    static let labels: Set = [
        "TokenKeyring.Keyring", "TokenAuth.URLSessionHTTPTransport", "TokenAuth.TokenEndpointClient",
        "TokenAuth.TokenRevocationClient", "TokenAuth.AuthManager", "TokenAuth.AuthorizedClient",
    ]

    @Test("sign-in → request → 401 → refresh → retry → sign-out at trace level: no token, password, client secret or code in any log line, event or error")
    func wholeSessionLeaksNothing() async throws {
        let password = "pw-\(UUID().uuidString)"
        let clientSecret = "cs-\(UUID().uuidString)"
        let code = "code-\(UUID().uuidString)"
        let configuration = OAuthTestServer.Configuration(
            clients: [.init(id: "vault", secret: clientSecret)], users: ["alice": password])
        try await withServer(configuration) { server in
            let capture = LogCapture()
            let client = OAuthClient(
                tokenEndpoint: server.tokenEndpoint, clientID: "vault", clientSecret: clientSecret,
                revocationEndpoint: server.revocationEndpoint)
            let transport = URLSessionHTTPTransport(logger: capture.logger("TokenAuth.URLSessionHTTPTransport"))
            let keyring = Keyring(configuration: TestKeyring.keyring.configuration, logger: capture.logger("TokenKeyring.Keyring"))
            let store = KeyringAuthStore(service: TestKeyring.uniqueService(), account: "alice", client: client, keyring: keyring)
            try await cleaningUp({ _ = try? await store.erase() }) {
                let endpoint = TokenEndpointClient(client: client, transport: transport, logger: capture.logger("TokenAuth.TokenEndpointClient"))
                let manager = AuthManager(store: store, refresher: endpoint, logger: capture.logger("TokenAuth.AuthManager"))
                let events = EventLog(manager)
                let api = AuthorizedClient(manager: manager, transport: transport, logger: capture.logger("TokenAuth.AuthorizedClient"))
                // A query can carry a secret too, e.g. an authorization code in a redirect: logs show URLs without one.
                let resource = HTTPRequest(method: .get, url: server.url("/resource/notes?code=\(code)"))
                var errors: [any Error] = []

                // Sign in: first with a wrong password (whose error must not quote it), then with the right one.
                let signIn = SignIn(client: client, transport: transport, logger: capture.logger("TokenAuth.TokenEndpointClient"))
                do {
                    _ = try await signIn.perform(.password(username: "alice", password: "wrong-\(password)"))
                    Issue.record("a wrong password signed in")
                } catch {
                    errors.append(error)
                }
                let signedIn = try await signIn.perform(.password(username: "alice", password: password)).auth
                try await manager.signIn(signedIn)

                // A request; then the server forgets the access token: 401, one refresh, one retry.
                #expect(try await api.send(resource).0.status == .ok)
                server.revokeAllAccessTokens()
                #expect(try await api.send(resource).0.status == .ok)
                #expect(server.stats.responses(withStatus: 401) == 1)
                #expect(server.stats.successfulRefreshes == 1)
                let refreshed = try #require(try await store.load())

                // Sign out: revoke the refresh token, forget the session; the next request needs a sign-in.
                let revoker = TokenRevocationClient(
                    client: client, endpoint: server.revocationEndpoint, transport: transport,
                    logger: capture.logger("TokenAuth.TokenRevocationClient"))
                try await revoker.revoke(try #require(refreshed.refreshToken), hint: .refreshToken)
                try await manager.signOut()
                do {
                    _ = try await api.send(resource)
                    Issue.record("a request after sign-out was sent")
                } catch {
                    errors.append(error)
                }
                let seen = try await events.waitFor { $0.contains(.loggedOut) }

                let secrets: [(name: String, value: String)] = [
                    ("password", password), ("client secret", clientSecret), ("authorization code", code),
                    ("Basic credentials", Data("vault:\(clientSecret)".utf8).base64EncodedString()),
                    ("first access token", signedIn.accessToken), ("first refresh token", try #require(signedIn.refreshToken)),
                    ("refreshed access token", refreshed.accessToken), ("rotated refresh token", try #require(refreshed.refreshToken)),
                ]
                #expect(signedIn.refreshToken != refreshed.refreshToken, "the refresh rotated the refresh token")
                let lines = capture.lines
                let texts = lines.map(\.description) + seen.map { "\($0)" }
                    + errors.flatMap { ["\($0)", String(reflecting: $0), $0.localizedDescription] }
                for text in texts {
                    for secret in secrets where text.contains(secret.value) {
                        Issue.record("the \(secret.name) appears in: \(text)")
                    }
                }

                // What was checked is the whole story: every component spoke, at trace and debug level, about this session.
                #expect(Set(lines.map(\.label)) == Self.labels)
                #expect(Set(lines.map(\.level)).isSuperset(of: [.trace, .debug]))
                let requests = lines.filter { $0.message == "authorized request finished" }
                #expect(requests.map { $0.metadata["request"] } == Array(repeating: "GET \(server.url("/resource/notes"))", count: 2))
                #expect(lines.contains { $0.message == "the server rejected the token; refreshing once" && $0.metadata["status"] == "401" })
                #expect(lines.contains { $0.message == "token request finished" && $0.metadata["grant_type"] == "refresh_token" })
                #expect(lines.contains { $0.message == "token request failed" && $0.metadata["error"] == "TokenAuthError.rejected" })
                #expect(lines.contains { $0.message == "token revocation finished" && $0.metadata["hint"] == "refresh_token" })
                #expect(lines.contains { $0.message == "keyring store done" && $0.metadata["account"] == "alice" })
                #expect(lines.contains { $0.message == "keyring delete done" && $0.metadata["outcome"] == "1 deleted" })
                #expect(lines.filter { $0.message.hasSuffix("finished") }.allSatisfy { $0.metadata["duration"] != nil })
                #expect(seen.contains(.refreshSucceeded) && seen.contains(.refreshTokenRotated))
                #expect(errors.first is TokenAuthError)
                #expect((errors.last as? TokenAuthError)?.isLoginRequired == true)
            }
        }
    }
}
