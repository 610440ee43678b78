@testable import Keyring
import Testing

/// A `Keyring` takes its backend when it is made, and every call goes there: nothing asks about the sandbox again.
/// Neither test needs a keyring: the calls they make are the ones the sandbox's file refuses without libsecret.
@Suite("Keyring's backend: chosen once, when the keyring is made")
struct KeyringBackendChoiceTests {
    @Test("a keyring made with the sandbox's backend outside a sandbox keeps it for every call")
    func explicitSandbox() async throws {
        let file = AppKeyringFile(path: "/nonexistent/backend-choice-test.keyring")
        let keyring = Keyring(configuration: .init(timeout: .seconds(2), prompting: .never), backend: .sandbox(file))
        let backend = try #require(keyring.backend as? SandboxBackend)
        #expect(backend.file === file, "the file given, not the process's")
        for _ in 1...2 {
            let lock = await #expect(throws: KeyringError.self) { try await keyring.lock(.default) }
            #expect(lock == .appKeyringCannotLock)
            let changes = await #expect(throws: KeyringError.self) { try await keyring.changes() }
            #expect(changes == .appKeyringAnnouncesNoChanges)
            guard case .needsPrompt = try keyring.lookupBlocking(["service": "backend-choice-test"]) else {
                Issue.record("the sandbox's blocking lookup sends the caller to lookup(_:)")
                continue
            }
        }
    }

    @Test("a keyring made with the Secret Service's backend, and the process's own choice made once")
    func secretServiceAndProcess() {
        #expect(Keyring(backend: .secretService).backend is SecretServiceBackend)
        let made = Keyring()
        switch Keyring.BackendChoice.ofThisProcess {
        case .secretService:
            #expect(made.backend is SecretServiceBackend)
            #expect(!Keyring.usesSandboxKeyring)
        case .sandbox(let file):
            #expect((made.backend as? SandboxBackend)?.file === file)
            #expect(file === AppKeyringFile.ofThisProcess, "one file state per process")
            #expect(Keyring.usesSandboxKeyring)
        }
        #expect(Keyring.usesSandboxKeyring == AppKeyringFile.isLibsecretsBackend)
    }
}
