import Keyring
import KeyringTestSupport
import Testing

@Suite("Keyring diagnosis", .needsSecretService)
struct KeyringDiagnosisTests {
    @Test("on a working session every check passes and names the default collection")
    func healthy() async throws {
        let diagnosis = await TestKeyring.keyring.diagnose()
        #expect(diagnosis.isUsable, "\(diagnosis)")
        #expect(diagnosis.checks.map(\.name) == ["session bus", "Secret Service", "session", "default collection"])
        #expect(diagnosis.checks.allSatisfy { $0.status == .ok })
        #expect(diagnosis.description.contains("/org/freedesktop/secrets/collection/"))
    }
}
