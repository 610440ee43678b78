import Foundation
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthFileStore
import TokenAuthURLSession

/// `SignOut` of a file item, as an app without a Secret Service signs out: what its outcome tells the user when the
/// provider cannot be told, and what is left on the machine (nothing, also with `delete()`, which revokes nothing).
@Suite("Signing out of a file item")
struct FileStoreSignOutTests {
    @Test("a revocation endpoint that cannot be reached: the file is deleted, and the error's fix says the tokens stay valid at the server, not that they were kept")
    func unreachableRevocation() async throws {
        let temporary = try TemporaryDirectory()
        let store = FileAuthStore(
            service: "signout.example", account: "ada", directory: temporary.url.appendingPathComponent("tokenkeyring"))
        let nowhere = try await withServer { $0.revocationEndpoint }  // nothing listens there any more
        let client = OAuthClient(
            tokenEndpoint: nowhere.deletingLastPathComponent().appendingPathComponent("token"), clientID: "cli",
            revocationEndpoint: nowhere)
        try await store.signIn(
            StoredCredentials(auth: Auth(accessToken: "access-1", refreshToken: "refresh-1"), client: client))

        let outcome = try await SignOut.perform(store: store, transport: URLSessionHTTPTransport())

        #expect(outcome.deleted)
        #expect(try await store.loadCredentials() == nil)
        guard case .failed(let error) = outcome.revocation else {
            Issue.record("the revocation did not fail: \(outcome.revocation)")
            return
        }
        #expect(error.code == .networkFailure)
        #expect(error.reason.contains("revocation endpoint"))
        // What the docs' sign-out code shows beside "signed out on this computer".
        #expect(!error.fix.contains("kept"), "the fix says the deleted tokens were kept: \(error.fix)")
        #expect(error.fix.contains("stay valid at the server until they expire"))
    }

    @Test("an answer kept because the store failed in the refresh window: its newest tokens are revoked first, and the kept answer goes with the file")
    func keptAnswerSignedOut() async throws {
        try await withServer { server in
            let temporary = try TemporaryDirectory()
            let store = FileAuthStore(
                service: "signout.example", account: "ada", directory: temporary.url.appendingPathComponent("tokenkeyring"))
            let client = OAuthClient(
                tokenEndpoint: server.tokenEndpoint, clientID: "test-client", revocationEndpoint: server.revocationEndpoint)
            let issued = server.issueTokens(clientID: "test-client", subject: "ada")
            let stored = Auth(
                accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresAt: issued.expiresAt)
            try await store.signIn(StoredCredentials(auth: stored, client: client))
            // What AuthManager does in the refresh window: the grant rotates the refresh token, the answer is kept,
            // and the store cannot take it (a keyring that died, a full disk).
            let transport = URLSessionHTTPTransport()
            let answer = try await TokenEndpointClient(client: client, transport: transport)
                .refresh(refreshToken: try #require(issued.refreshToken)).auth(updating: stored)
            try store.refreshJournal.keep(answer, replacing: stored)
            try await cleaningUp({ try? store.refreshJournal.discard() }) {
                server.resetStats()

                let outcome = try await SignOut.perform(store: store, transport: transport)

                #expect(outcome.deleted)
                #expect(outcome.revocation == .revoked)
                #expect(try await store.loadCredentials() == nil)
                #expect(try store.refreshJournal.keptAnswer() == nil, "no live token of the session is left behind")
                // Each token once: the kept refresh token, the stored (retired) one, then both access tokens.
                #expect(server.stats.revocationRequests == 4)
            }
        }
    }

    @Test("delete takes the answer a refresh kept for the entry with it, revoking nothing")
    func deleteDiscardsTheKeptAnswer() async throws {
        let temporary = try TemporaryDirectory()
        let store = FileAuthStore(
            service: "delete.example", account: "ada", directory: temporary.url.appendingPathComponent("tokenkeyring"))
        let stored = Auth(accessToken: "AT-1", refreshToken: "RT-1")
        try await store.signIn(StoredCredentials(auth: stored))
        try store.refreshJournal.keep(Auth(accessToken: "AT-2", refreshToken: "RT-2"), replacing: stored)
        defer { try? store.refreshJournal.discard() }
        #expect(try await store.delete())
        #expect(try store.refreshJournal.keptAnswer() == nil, "the session's newest tokens are left behind")
    }
}
