import Foundation
@testable import Keyring
import KeyringTestSupport
import TestSupport
import Testing

/// KeePassXC with its default `UnlockBeforeSearch=true`: a search of a locked database waits inside KeePassXC for
/// its unlock dialog. `scripts/test` runs this suite alone on a KeePassXC started with that setting; it fails on any
/// other provider or setting.
@Suite("KeePassXC with UnlockBeforeSearch", .needsPrivateProvider, .serialized)
struct KeePassXCUnlockBeforeSearchTests {
    let keyring = Keyring(configuration: .init(timeout: .seconds(2), prompting: .never))

    init() throws {
        try #require(TestProvider.current == .keepassxc && TestProvider.keePassXCUnlocksBeforeSearch,
                     "needs KeePassXC started with UnlockBeforeSearch=true (scripts/test does that for this suite)")
    }

    /// One test, one lock: once a search has opened KeePassXC's unlock dialog, KeePassXC 2.7.4 refuses to lock
    /// again (lockAllDatabases does nothing, the Secret Service Lock prompt is dismissed) until that dialog closes,
    /// which no one can do headless.
    @Test("a search that waits for KeePassXC's unlock dialog: without prompting locked; with prompting timed out after the prompt's limit, saying the keyring may be waiting for the user")
    func searchWaitsForTheDialog() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            try await keyring.store("precious", label: "L", attributes: attributes)
            let prompting = Keyring(configuration: .init(timeout: .seconds(2), prompting: .allowed, promptTimeout: .seconds(6)))
            try await withDefaultCollectionLocked {
                let lookup = await #expect(throws: KeyringError.self) { try await keyring.lookup(attributes) }
                #expect(lookup?.code == .locked, "\(String(describing: lookup))")
                let delete = await #expect(throws: KeyringError.self) { try await keyring.delete(attributes) }
                #expect(delete?.code == .locked, "\(String(describing: delete))")

                let error = await #expect(throws: KeyringError.self) { try await prompting.lookup(attributes) }
                #expect(error?.code == .timedOut)
                // The prompt's limit (6 s) ran out, not the call's (2 s), and the keyring may be waiting for the user.
                #expect(
                    error?.reason == KeyringError.timedOutWaitingForUnlock(after: .seconds(6), nil).reason,
                    "\(String(describing: error))")
            }
            #expect(try await keyring.lookup(attributes)?.secret == "precious")
        }
    }
}
