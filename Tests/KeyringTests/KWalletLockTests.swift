import Foundation
import Keyring
import KeyringTestSupport
import TestSupport
import Testing

/// KWallet only: `scripts/test` runs this suite in the KWallet run alone, and it fails on any other provider.
@Suite("KWallet: a wallet opened at login", .needsPrivateProvider, .serialized)
struct KWalletLockTests {
    let keyring = TestKeyring.keyring

    @Test("after a PAM-style open: locked without prompting; with prompting, Unlock completes with no dialog")
    func afterPamOpen() async throws {
        let provider = TestProvider.current
        try #require(provider == .kwallet, "this suite is for KWallet; the run's provider is \(provider.rawValue)")
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            try await keyring.store("precious", label: "L", attributes: attributes)
            try await provider.lockDefaultCollection()
            try await provider.pamOpenKWallet()

            let error = await #expect(throws: KeyringError.self) { try await keyring.lookup(attributes) }
            #expect(error?.code == .locked)
            let prompting = Keyring(configuration: .init(timeout: .seconds(10), prompting: .allowed, promptTimeout: .seconds(30)))
            #expect(try await prompting.lookup(attributes)?.secret == "precious")
            #expect(try await keyring.lookup(attributes)?.secret == "precious")
        }
    }
}
