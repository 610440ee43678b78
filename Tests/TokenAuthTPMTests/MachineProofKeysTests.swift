import Foundation
import TestSupport
import Testing
import TokenAuth
import TokenAuthDPoP
import TokenAuthTPM

/// MachineProofKeys where no TPM can be reached: the preference decides where keys are made, stored keys of either
/// kind are signed with where they live.
struct MachineProofKeysWithoutTPMTests {
    static func unreachable() throws -> [String: String] {
        ["TPM2TOOLS_TCTI": "swtpm:host=127.0.0.1,port=\(try closedLoopbackPort())"]
    }

    @Test("auto and software make software keys where no TPM answers; tpm fails with proofKeyUnavailable")
    func preferences() async throws {
        let environment = try Self.unreachable()
        #expect(try await MachineProofKeys(.automatic, environment: environment).makeKey().kind == .software)
        #expect(try await MachineProofKeys(.software, environment: environment).makeKey().kind == .software)
        let error = await #expect(throws: TokenAuthError.self) {
            _ = try await MachineProofKeys(.tpm, environment: environment).makeKey()
        }
        #expect(error?.code == .proofKeyUnavailable)
    }

    @Test("a stored software key signs; an unknown kind is proofKeyUnusable; the names are tokenctl's")
    func storedKinds() async throws {
        let keys = MachineProofKeys(.tpm, environment: try Self.unreachable())
        let software = try await SoftwareProofKeys().makeKey()
        #expect(try await keys.signer(for: software).thumbprint == software.thumbprint)
        let unknown = ProofKey(kind: ProofKey.Kind(rawValue: "hsm"), thumbprint: software.thumbprint, material: "x")
        let error = await #expect(throws: TokenAuthError.self) { _ = try await keys.signer(for: unknown) }
        #expect(error?.code == .proofKeyUnusable)
        #expect(["auto", "tpm", "software"].compactMap(MachineProofKeys.Preference.init).map(\.description)
            == ["auto", "tpm", "software"])
        #expect(MachineProofKeys.Preference("hardware") == nil)
    }
}

extension SoftwareTPMTests {
    /// MachineProofKeys with swtpm: auto chooses it.
    @Suite
    struct MachineProofKeysTests {
        @Test("auto makes the key in the TPM where one answers; another provider signs with it")
        func automaticChoosesTheTPM() async throws {
            let environment = ["TPM2TOOLS_TCTI": try SoftwareTPM.tcti()]
            let key = try await MachineProofKeys(.automatic, environment: environment).makeKey()
            #expect(key.kind == .tpm)
            let proof = try await MachineProofKeys(.software, environment: environment).signer(for: key)
                .proof(for: DPoPProofRequest(method: "GET", url: "https://api.example/me", accessToken: "a"))
            #expect(try CheckedProof(proof).isValid)
            #expect(try CheckedProof(proof).thumbprint == key.thumbprint)
        }
    }
}
