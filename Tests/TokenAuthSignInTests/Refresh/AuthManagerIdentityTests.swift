import Foundation
import OAuthTestServer
import Synchronization
import Testing
@testable import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn
import TokenAuthURLSession

@Suite("AuthManager with an identity check: a refresh never changes who is signed in")
struct AuthManagerIdentityTests {
    /// A signed-in session for alice with an identity, expired so the next call refreshes, in a store, and a
    /// manager that checks refreshed id_tokens with `check` (the fixture's verifier by default).
    struct Session {
        let fixture: OpenIDFixture
        let signedIn: Auth
        let store: InMemoryAuthStore
        let manager: AuthManager

        init(_ fixture: OpenIDFixture, check: (any IdentityCheck)? = nil, identity: Bool = true) async throws {
            self.fixture = fixture
            let response = try await fixture.passwordGrant(scope: "openid read")
            var auth = response.auth(updating: nil)
            if identity {
                auth.identity = try await fixture.verifier.identity(from: response, nonce: nil, userinfoEndpoint: nil)
            }
            auth.expiresAt = fixture.clock.now.addingTimeInterval(-10)
            signedIn = auth
            store = InMemoryAuthStore(auth)
            self.check = check ?? fixture.verifier
            manager = Self.manager(fixture, store: store, check: self.check)
        }

        let check: any IdentityCheck

        static func manager(_ fixture: OpenIDFixture, store: any AuthStore, check: any IdentityCheck) -> AuthManager {
            let client = OAuthClient(tokenEndpoint: fixture.server.tokenEndpoint, clientID: OpenIDFixture.clientID)
            return AuthManager(
                store: store,
                refresher: TokenEndpointClient(client: client, transport: URLSessionHTTPTransport(), wallClock: fixture.clock.wallClock),
                configuration: .init(backoff: Backoff(jitter: false), identityCheck: check),
                revoker: TokenRevocationClient(
                    client: client, endpoint: fixture.server.revocationEndpoint, transport: URLSessionHTTPTransport()),
                wallClock: fixture.clock.wallClock)
        }

        /// A manager of another process over the same store: it starts from what the store holds.
        func anotherManager() -> AuthManager {
            Self.manager(fixture, store: store, check: check)
        }

        /// Checks that the store holds the ended entry: alice's identity and old access token, no refresh token,
        /// and a reason that contains `reason`.
        func expectEnded(because reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let entry = try #require(store.current, sourceLocation: sourceLocation)
            #expect(entry.endReason?.contains(reason) == true, "\(entry.endReason ?? "not ended")", sourceLocation: sourceLocation)
            #expect(entry.refreshToken == nil, "no refresh token that could be sent again", sourceLocation: sourceLocation)
            #expect(entry.identity == signedIn.identity, sourceLocation: sourceLocation)
            #expect(entry.accessToken == signedIn.accessToken, sourceLocation: sourceLocation)
        }

        /// The `TokenAuthError` of `validAuth()`.
        func failure() async -> TokenAuthError? {
            do {
                _ = try await manager.validAuth()
                return nil
            } catch {
                return error as? TokenAuthError
            }
        }
    }

    @Test("a refreshed id_token for the same account: the tokens are adopted and stored with the identity")
    func sameAccount() async throws {
        try await withOpenID { fixture in
            let session = try await Session(fixture)
            let refreshed = try await session.manager.validAuth()
            #expect(refreshed.accessToken != session.signedIn.accessToken)
            #expect(refreshed.identity == session.signedIn.identity)
            #expect(session.store.current == refreshed)
            #expect(fixture.server.stats.refreshGrants == 1)
            #expect(fixture.server.stats.idTokensIssued == 2)
            // The keys fetched for the sign-in were reused.
            #expect(fixture.server.stats.jwksRequests == 1)
        }
    }

    @Test("a refreshed id_token for another sub ends the session: nothing of the answer is used, the entry says why")
    func changedSubject() async throws {
        try await withOpenID { fixture in
            let session = try await Session(fixture)
            fixture.server.updateFaults { $0.idTokenFaults = [.changedSubject] }
            let error = try #require(await session.failure())
            #expect(error.isLoginRequired)
            #expect(error.idTokenError == .subjectChanged)
            try session.expectEnded(because: "another account")
            // The answer's refresh token (and with it its family) and access token were revoked: they were live,
            // and nobody will use them.
            #expect(fixture.server.stats.revocationRequests == 2)
            #expect(fixture.server.stats.revokedTokens == 1)

            let again = try #require(await session.failure())
            #expect(again.isLoginRequired)
            // Another process that reads the entry sees the end too, and sends nothing.
            let other = session.anotherManager()
            let otherError = await #expect(throws: TokenAuthError.self) { try await other.validAuth() }
            #expect(otherError?.code == .sessionEnded)
            #expect(otherError?.isLoginRequired == true)
            #expect(fixture.server.stats.refreshGrants == 1)
            #expect(fixture.server.stats.reuseDetections == 0)
        }
    }

    @Test("a refreshed id_token that does not validate ends the session too: the refresh token was spent")
    func invalidIDToken() async throws {
        try await withOpenID { fixture in
            let session = try await Session(fixture)
            fixture.server.updateFaults { $0.idTokenFaults = [.badSignature] }
            let error = try #require(await session.failure())
            #expect(error.isLoginRequired)
            #expect(error.idTokenError == .badSignature)
            try session.expectEnded(because: "could not be verified")
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }

    @Test("keys that cannot be fetched stop the refresh before the refresh token is sent: transient, then it works")
    func keysUnavailableBeforeRefresh() async throws {
        try await withOpenID { fixture in
            // A verifier of its own, with nothing cached, so the refresh has to fetch the keys.
            let session = try await Session(fixture, check: fixture.verifier())
            fixture.server.updateFaults { $0.jwksUnavailable = 1 }
            let error = try #require(await session.failure())
            #expect(error.isTransient)
            #expect(error.idTokenError == .jwksUnavailable)
            #expect(fixture.server.stats.refreshGrants == 0)
            #expect(session.store.current == session.signedIn)

            fixture.clock.advance(by: error.retryAfter ?? .seconds(1))
            let refreshed = try await session.manager.validAuth()
            #expect(refreshed.identity == session.signedIn.identity)
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }

    @Test("tokens without an identity are refreshed without consulting the identity check")
    func noIdentityNoCheck() async throws {
        try await withOpenID { fixture in
            let check = CountingIdentityCheck()
            let session = try await Session(fixture, check: check, identity: false)
            fixture.server.updateFaults { $0.idTokenFaults = [.changedSubject] }
            let refreshed = try await session.manager.validAuth()
            #expect(refreshed.identity == nil)
            #expect(check.prepared == 0 && check.checked == 0)
        }
    }

    @Test("an identity check that fails with another error: misconfigured; prepared before the request, checked after")
    func otherFailure() async throws {
        try await withOpenID { fixture in
            let check = CountingIdentityCheck()
            let session = try await Session(fixture, check: check)
            let refreshed = try await session.manager.validAuth()
            #expect(refreshed.identity == session.signedIn.identity)
            #expect(check.prepared == 1 && check.checked == 1)

            let failing = CountingIdentityCheck(failure: Unexpected())
            let second = try await Session(fixture, check: failing)
            let error = try #require(await second.failure())
            #expect(error.isLoginRequired)
            #expect((error.underlying as? TokenAuthError)?.code == .identityUntrusted)
            try second.expectEnded(because: "could not be verified")
        }
    }
}

private struct Unexpected: Error {}

/// An identity check that counts its calls, keeps the previous identity, and can be told to fail the check.
final class CountingIdentityCheck: IdentityCheck {
    private let state = Mutex((prepared: 0, checked: 0))
    private let failure: (any Error)?

    init(failure: (any Error)? = nil) {
        self.failure = failure
    }

    var prepared: Int { state.withLock { $0.prepared } }
    var checked: Int { state.withLock { $0.checked } }

    func prepareCheck() async throws {
        state.withLock { $0.prepared += 1 }
    }

    func checkRefresh(_ response: TokenResponse, keeping previous: Identity) async throws -> Identity {
        state.withLock { $0.checked += 1 }
        if let failure { throw failure }
        return previous
    }
}

extension TokenAuthError {
    /// The ``SignInError`` behind an identity check's failure, if that is what failed.
    var idTokenError: SignInError? {
        (underlying as? SignInError) ?? ((underlying as? TokenAuthError)?.underlying as? SignInError)
    }
}
