import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuthTesting
import TokenKeyring

/// A keyring that does not answer (its process stopped): the states say so within a second instead of staying as they
/// were, and the state the keyring gives follows once it answers.
@Suite("AuthSession: a keyring that does not answer", .needsSecretService, .timeLimit(.minutes(2)))
struct AuthSessionKeyringWaitTests {
    @Test("the states say within a second that the keyring keeps them waiting; signed in again once it answers", .needsPrivateProvider)
    func statesSayTheKeyringWaits() async throws {
        try await withServer { server in
            let service = TestKeyring.uniqueService()
            try await AuthSessionTests.cleaningService(service) {
                let clock = ManualClock()
                let session = AuthSession(
                    configuration: .init(
                        provider: .issuer(server.issuer), clientID: "test-client", scope: "openid read", service: service,
                        keyring: TestKeyring.keyring, transport: URLSessionHTTPTransport(timeout: .seconds(60)), clock: clock),
                    browserEnvironment: [:])
                let account = try await signInThroughTheBrowser(session)
                var states = session.states.makeAsyncIterator()
                guard case .signedIn = await states.next() else {
                    Issue.record("the first state was not signed in")
                    return
                }
                try await waitUntil("the first read's second to be given up") { clock.sleeping == 0 }

                let reading = try await withSecretServiceStopped {
                    let reading = Task { await session.state() }  // waits for the stopped keyring
                    try await waitUntil("the read's second to begin", within: .seconds(4)) { clock.sleeping == 1 }
                    clock.advance(by: .seconds(1))
                    let waiting = await states.next()
                    guard case .unavailable(let error) = waiting else {
                        Issue.record("the state while waiting was \(String(describing: waiting))")
                        return reading
                    }
                    #expect(error.code == .waiting)
                    #expect(error.description.contains("unlock"))
                    return reading
                }
                #expect(await reading.value == .signedIn(account))
                #expect(await states.next() == .signedIn(account))
            }
        }
    }
}
