import Foundation
import KeyringTestSupport
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
import TokenKeyring

/// gnome-keyring shows the items of a collection it (re)loaded locked from disk with hashed attributes only, until
/// the collection is unlocked: an account whose name nobody can read yet is still an account.
@Suite("AuthSession: an account gnome-keyring hides while locked", .needsSecretService, .timeLimit(.minutes(2)))
struct AuthSessionHiddenAccountTests {
    @Test("the one account of a service, hidden while locked: unavailable (locked), never signed out", .needsPrivateProvider)
    func hiddenAccountIsUnavailable() async throws {
        let data = try #require(ProcessInfo.processInfo.environment["XDG_DATA_HOME"], "scripts/test sets XDG_DATA_HOME")
        try await withServer { server in
            let label = "hidden-\(UUID().uuidString.prefix(8))"
            try await TestKeyring.withCollection(label: label) { collection in
                let service = TestKeyring.uniqueService()
                let store = KeyringAuthStore(
                    service: service, account: "ada", keyring: TestKeyring.keyring, collection: collection.keyringCollection)
                let issued = server.issueTokens(clientID: "test-client", subject: "ada")
                try await store.save(Auth(accessToken: issued.accessToken, refreshToken: issued.refreshToken))
                try await TestKeyring.lockWithGDBus(collection.path)

                // gnome-keyring re-reads a collection's file that changed on disk, on its next use, when the directory
                // changed too (its file tracker looks at the directory's time first): locked, it then shows the item's
                // attributes hashed, as it shows every collection but the login one after a start.
                let directory = URL(fileURLWithPath: data).appendingPathComponent("keyrings")
                let file = directory.appendingPathComponent("\(label).keyring")
                var minutes = 0.0
                try await waitUntil("gnome-keyring to show the locked item's attributes hashed") {
                    minutes += 1
                    for changed in [file, directory] {
                        try FileManager.default.setAttributes(
                            [.modificationDate: Date(timeIntervalSinceNow: minutes * 60)], ofItemAtPath: changed.path)
                    }
                    let items = try await TestKeyring.keyring.items(matching: ["service": service])
                    return items.first?.hashedAttributeNames.contains("account") == true
                }
                let listed = try await KeyringAuthStore.accounts(of: service, keyring: TestKeyring.keyring)
                #expect(listed.count == 1 && listed[0].isLocked && listed[0].attributes["account"] == nil)

                let session = AuthSession(configuration: .init(
                    provider: .issuer(server.issuer), clientID: "test-client", service: service,
                    keyring: Keyring(configuration: .init(prompting: .never))))
                guard case .unavailable(let error) = await session.state() else {
                    Issue.record("an account hidden by a locked collection was not reported as unavailable")
                    return
                }
                #expect(error.code == .locked)

                try await TestKeyring.unlockCollection(collection.path)
                #expect(await session.state() == .signedIn(.init(name: "ada", identity: nil)))
            }
        }
    }
}
