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
    ///
    /// The prompt's limit is longer than GDBus's 25 s for a call, which the search's reply must wait beyond: the user
    /// has the whole limit to type the password (it used to end at 25 s). Only a lower bound of the time is asserted:
    /// the call's 2 s and the prompt's limit both pass before the error, however slow the machine.
    @Test("a search that waits for KeePassXC's unlock dialog: without prompting locked; with prompting timed out after the prompt's limit, saying the keyring may be waiting for the user")
    func searchWaitsForTheDialog() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            try await keyring.store("precious", label: "L", attributes: attributes)
            let promptTimeout = Duration.seconds(30)
            let prompting = Keyring(configuration: .init(timeout: .seconds(2), prompting: .allowed, promptTimeout: promptTimeout))
            try await withDefaultCollectionLocked {
                let lookup = await #expect(throws: KeyringError.self) { try await keyring.lookup(attributes) }
                #expect(lookup?.code == .locked, "\(String(describing: lookup))")
                let delete = await #expect(throws: KeyringError.self) { try await keyring.delete(attributes) }
                #expect(delete?.code == .locked, "\(String(describing: delete))")

                let started = ContinuousClock.now
                let error = await #expect(throws: KeyringError.self) { try await prompting.lookup(attributes) }
                let waited = ContinuousClock.now - started
                #expect(error?.code == .timedOut)
                // The prompt's limit ran out, not the call's (2 s), and the keyring may be waiting for the user.
                #expect(
                    error?.reason == KeyringError.timedOutWaitingForUnlock(after: promptTimeout, nil).reason,
                    "\(String(describing: error))")
                #expect(waited >= .seconds(2) + promptTimeout, "the search's reply was given up after \(waited)")
            }
            #expect(try await keyring.lookup(attributes)?.secret == "precious")
        }
    }
}
