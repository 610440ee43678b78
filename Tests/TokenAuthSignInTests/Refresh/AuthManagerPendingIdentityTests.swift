import Foundation
import OAuthTestServer
import OAuthTestSupport
import Testing
import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn
import TokenAuthURLSession

/// A refresh whose `id_token` cannot be checked at once, after its refresh token was spent: the answer is kept with
/// the check pending, never thrown away (which made the next refresh spend the old token again).
@Suite("AuthManager: an identity check that cannot run at once is pending, never a lost answer")
struct AuthManagerPendingIdentityTests {
    typealias Session = AuthManagerIdentityTests.Session

    @Test("a refresh whose id_token cannot be checked at once keeps its answer: another process's refresh reuses nothing")
    func answerKeptForTheNextRefresh() async throws {
        try await withOpenID { fixture in
            let session = try await Session(fixture)
            await fixture.server.rotateSigningKey()
            _ = try? await session.manager.validAuth()
            // Another process, without an identity check, refreshes from what the store holds.
            let client = OAuthClient(tokenEndpoint: fixture.server.tokenEndpoint, clientID: OpenIDFixture.clientID)
            let other = AuthManager(
                store: session.store, refresher: TokenEndpointClient(client: client, transport: URLSessionHTTPTransport(), wallClock: fixture.clock.wallClock),
                wallClock: fixture.clock.wallClock)
            _ = try await other.refresh()
            #expect(fixture.server.stats.refreshGrants == 2)
            #expect(fixture.server.stats.reuseDetections == 0)
        }
    }

    @Test("the key set answers 503 after a key rotation: the tokens are stored and served, checked on a later use")
    func keySetUnavailableAfterRefresh() async throws {
        try await withOpenID { fixture in
            let session = try await Session(fixture)
            let events = EventLog(session.manager)
            // The issuer rotates its key: the refresh's id_token names a kid the cached set lacks, and the refetch
            // (allowed: the set is over a minute old) fails.
            fixture.clock.advance(by: IDTokenVerifier.minimumRefetchInterval + .seconds(1))
            await fixture.server.rotateSigningKey()
            fixture.server.updateFaults { $0.jwksUnavailable = 1 }

            let refreshed = try await session.manager.validAuth()
            #expect(refreshed.accessToken != session.signedIn.accessToken)
            let stored = try #require(session.store.current)
            #expect(stored.accessToken == refreshed.accessToken)
            #expect(stored.refreshToken == refreshed.refreshToken && stored.refreshToken != session.signedIn.refreshToken)
            #expect(stored.unverifiedIDToken != nil, "the check is pending")
            #expect(stored.identity == session.signedIn.identity)
            try await events.waitFor { $0.contains(.identityCheckPending) }

            // Within the backoff, a use serves the tokens without asking for the keys again.
            let jwksBefore = fixture.server.stats.jwksRequests
            #expect(try await session.manager.validToken() == refreshed.accessToken)
            #expect(fixture.server.stats.jwksRequests == jwksBefore)

            // After it, the next use checks: the key set now answers, the check passes and is written.
            fixture.clock.advance(by: .seconds(2))
            #expect(try await session.manager.validToken() == refreshed.accessToken)
            #expect(fixture.server.stats.jwksRequests == jwksBefore + 1)
            #expect(session.store.current?.unverifiedIDToken == nil)
            #expect(session.store.current?.identity == session.signedIn.identity)
            try await events.waitFor { $0.contains(.identityConfirmed) }

            // The rotated refresh token was kept: another process refreshes with it, and the server sees no reuse.
            let other = session.anotherManager()
            _ = try await other.refresh()
            #expect(fixture.server.stats.refreshGrants == 2)
            #expect(fixture.server.stats.reuseDetections == 0)
        }
    }

    @Test("an unknown kid while the key set may not be fetched again yet: pending, then checked once it may")
    func keyNotYetFetchable() async throws {
        try await withOpenID { fixture in
            let session = try await Session(fixture)
            // The key set was fetched for the sign-in just now; the issuer rotates its key at once.
            await fixture.server.rotateSigningKey()
            let refreshed = try await session.manager.validAuth()
            #expect(session.store.current?.unverifiedIDToken != nil)
            #expect(session.store.current?.accessToken == refreshed.accessToken)
            #expect(fixture.server.stats.jwksRequests == 1, "a refetch within a minute is refused, not sent")

            fixture.clock.advance(by: IDTokenVerifier.minimumRefetchInterval + .seconds(1))
            #expect(try await session.manager.validToken() == refreshed.accessToken)
            #expect(fixture.server.stats.jwksRequests == 2)
            #expect(session.store.current?.unverifiedIDToken == nil)
            #expect(fixture.server.stats.reuseDetections == 0)
        }
    }

    @Test("a pending check that then proves another account ends the session, and revokes the answer's tokens")
    func pendingThenAnotherAccount() async throws {
        try await withOpenID { fixture in
            let session = try await Session(fixture)
            await fixture.server.rotateSigningKey()
            fixture.server.updateFaults { $0.idTokenFaults = [.changedSubject] }
            let refreshed = try await session.manager.validAuth()
            #expect(session.store.current?.unverifiedIDToken != nil)

            fixture.clock.advance(by: IDTokenVerifier.minimumRefetchInterval + .seconds(1))
            let error = await #expect(throws: TokenAuthError.self) { try await session.manager.validToken() }
            #expect(error?.isLoginRequired == true)
            #expect(error?.idTokenError == .subjectChanged)
            let entry = try #require(session.store.current)
            #expect(entry.endReason?.contains("another account") == true)
            #expect(entry.refreshToken == nil)
            #expect(entry.identity == session.signedIn.identity)
            #expect(fixture.server.stats.revocationRequests == 2)
            // The answer's access token no longer works at the resource.
            let status = try await call(.get, fixture.server.resourceURL, bearer: refreshed.accessToken).status
            #expect(status == 401)
        }
    }

    @Test("another process's manager reads a pending entry, serves its tokens and finishes the check")
    func pendingEntryInAnotherProcess() async throws {
        try await withOpenID { fixture in
            let session = try await Session(fixture)
            await fixture.server.rotateSigningKey()
            let refreshed = try await session.manager.validAuth()
            #expect(session.store.current?.unverifiedIDToken != nil)

            fixture.clock.advance(by: IDTokenVerifier.minimumRefetchInterval + .seconds(1))
            let other = session.anotherManager()
            #expect(try await other.validToken() == refreshed.accessToken)
            #expect(session.store.current?.unverifiedIDToken == nil)
            #expect(fixture.server.stats.refreshGrants == 1)
        }
    }
}
