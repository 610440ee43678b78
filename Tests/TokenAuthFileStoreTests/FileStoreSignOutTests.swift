import Foundation
import OAuthTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthFileStore
import TokenAuthURLSession

/// `SignOut` of a file item, as an app without a Secret Service signs out: what its outcome tells the user when the
/// provider cannot be told.
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
}
