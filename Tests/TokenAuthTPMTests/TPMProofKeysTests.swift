import Crypto
import Foundation
import TestSupport
import Testing
import TokenAuth
import TokenAuthDPoP
import TokenAuthTPM

/// TPMProofKeys against swtpm, one test at a time with the other suites of ``SoftwareTPMTests``. Each provider lives
/// in a function of its own and is gone when the function returns: it holds swtpm's one connection while it lives.
extension SoftwareTPMTests {
    @Suite
    struct TPMProofKeysTests {
        let request = DPoPProofRequest(method: "POST", url: "https://auth.example.com/token", nonce: "n-1")

        @Test("makeKey makes a TPM key whose signer's proofs verify with the header's jwk, of the key's thumbprint")
        func proofVerifies() async throws {
            let tcti = try SoftwareTPM.tcti()
            let keys = TPMProofKeys(tcti: tcti)
            let key = try await keys.makeKey()
            #expect(key.kind == .tpm)
            let signer = try await keys.signer(for: key)
            #expect(signer.thumbprint == key.thumbprint)
            let proof = try await signer.proof(for: request)
            let checked = try CheckedProof(proof)
            #expect(checked.isValid)
            #expect(checked.thumbprint == key.thumbprint)
            #expect(checked.header["alg"] as? String == "ES256" && checked.header["typ"] as? String == "dpop+jwt")
            #expect(checked.claims["htm"] as? String == "POST" && checked.claims["nonce"] as? String == "n-1")
        }

        @Test("a second provider, as a second process is, signs with the stored key, and its proofs verify")
        func secondProviderSigns() async throws {
            let tcti = try SoftwareTPM.tcti()
            let stored = try await madeKey(tcti: tcti)
            let proof = try await proof(by: stored, tcti: tcti)
            let checked = try CheckedProof(proof)
            #expect(checked.isValid)
            #expect(checked.thumbprint == stored.thumbprint)
        }

        @Test("many proofs at once from one signer, each TPM call on the provider's queue: all verify")
        func concurrentProofs() async throws {
            let keys = TPMProofKeys(tcti: try SoftwareTPM.tcti())
            let signer = try await keys.signer(for: try await keys.makeKey())
            let request = self.request
            let proofs = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<12 { group.addTask { try await signer.proof(for: request) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(proofs.count == 12)
            #expect(try proofs.allSatisfy { try CheckedProof($0).isValid })
        }

        @Test("the material is the two TPM blobs only: a signing key fixed to this TPM and its parent, no decrypt")
        func materialIsTheTwoBlobs() async throws {
            let key = try await madeKey(tcti: try SoftwareTPM.tcti())
            let parts = key.material.split(separator: ".", omittingEmptySubsequences: false)
            try #require(parts.count == 2)
            let publicBlob = try #require(bytes(ofBase64URL: String(parts[0])))
            let privateBlob = try #require(bytes(ofBase64URL: String(parts[1])))
            let wrapped = try TPMWrappedKey(publicBlob: publicBlob, privateBlob: privateBlob)
            #expect(wrapped.attributes.isSuperset(of: [.fixedTPM, .fixedParent, .sign]))
            #expect(!wrapped.attributes.contains(.decrypt))
            #expect(JWKThumbprint.ecP256(x: wrapped.x, y: wrapped.y) == key.thumbprint)
            #expect(!String(describing: key).contains(key.material))
        }

        @Test("material that is not two TPM blobs, or not of its thumbprint, is proofKeyUnusable before the TPM")
        func damagedMaterial() async throws {
            let tcti = try SoftwareTPM.tcti()
            let key = try await madeKey(tcti: tcti)
            let keys = TPMProofKeys(tcti: tcti)
            let blobs = key.material.split(separator: ".").map(String.init)
            let damaged = [
                "", key.material + ".AAAA", blobs[0], "\(blobs[0]).", "\(blobs[0]).@@@@", "AAAA.\(blobs[1])",
                "\(blobs[1]).\(blobs[0])",
            ]
            for material in damaged {
                let error = await #expect(throws: TokenAuthError.self) {
                    _ = try await keys.signer(for: ProofKey(kind: .tpm, thumbprint: key.thumbprint, material: material))
                }
                #expect(error?.code == .proofKeyUnusable)
            }
            let other = try await keys.makeKey()
            let error = await #expect(throws: TokenAuthError.self) {
                _ = try await keys.signer(for: ProofKey(kind: .tpm, thumbprint: other.thumbprint, material: key.material))
            }
            #expect(error?.code == .proofKeyUnusable)
        }

        /// Last, as in TPMSigningTests: every other test makes its own keys all the same.
        @Test("after TPM2_Clear, signer(for:) of an old key is proofKeyUnusable (login required); makeKey works again")
        func clearedTPM() async throws {
            let tcti = try SoftwareTPM.tcti()
            let old = try await madeKey(tcti: tcti)
            try SoftwareTPM.clear()
            let keys = TPMProofKeys(tcti: tcti)
            let error = await #expect(throws: TokenAuthError.self) { _ = try await keys.signer(for: old) }
            #expect(error?.code == .proofKeyUnusable)
            #expect(error?.isLoginRequired == true)
            // checks the sentence's help: it says why the key cannot be used, and quotes no blob.
            #expect(error?.reason.contains("another TPM") == true)
            for blob in old.material.split(separator: ".") {
                #expect(error.map { !String(describing: $0).contains(blob) } == true)
            }
            let new = try await keys.makeKey()
            #expect(new.thumbprint != old.thumbprint)
            #expect(try CheckedProof(try await keys.signer(for: new).proof(for: request)).isValid)
        }

        /// A key made by a provider that is gone when this returns, as a sign-in in another process leaves it.
        private func madeKey(tcti: String) async throws -> ProofKey {
            try await TPMProofKeys(tcti: tcti).makeKey()
        }

        /// A proof by a provider of its own, gone when this returns.
        private func proof(by key: ProofKey, tcti: String) async throws -> String {
            try await TPMProofKeys(tcti: tcti).signer(for: key).proof(for: request)
        }
    }
}

/// TPMProofKeys without a TPM: what it refuses before opening one, and a TPM that cannot be reached.
struct TPMProofKeysWithoutTPMTests {
    @Test("a software key is proofKeyUnusable (login required), with no TPM opened")
    func softwareKeyIsUnusable() async throws {
        let software = try await SoftwareProofKeys().makeKey()
        let keys = TPMProofKeys(tcti: "swtpm:host=127.0.0.1,port=\(try closedLoopbackPort())")
        let error = await #expect(throws: TokenAuthError.self) { _ = try await keys.signer(for: software) }
        #expect(error?.code == .proofKeyUnusable)
        #expect(error?.isLoginRequired == true)
        #expect(error.map { !String(describing: $0).contains(software.material) } == true)
    }

    @Test("a TCTI naming a closed port is proofKeyUnavailable, not a reason to sign in again")
    func closedPortIsUnavailable() async throws {
        let keys = TPMProofKeys(tcti: "swtpm:host=127.0.0.1,port=\(try closedLoopbackPort())")
        let error = await #expect(throws: TokenAuthError.self) { _ = try await keys.makeKey() }
        #expect(error?.code == .proofKeyUnavailable)
        #expect(error?.isLoginRequired == false)
        // checks the sentence's help: it names the TCTI variable to check.
        #expect(error?.fix.contains("TPM2TOOLS_TCTI") == true)
    }
}

/// A DPoP proof (a compact JWS) read and checked as a server would, with swift-crypto: the signature by the header's
/// `jwk`, and that key's RFC 7638 thumbprint.
struct CheckedProof {
    let header: [String: Any]
    let claims: [String: Any]
    let isValid: Bool
    let thumbprint: String

    init(_ proof: String) throws {
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let headerJSON = try #require(bytes(ofBase64URL: parts[0]))
        let claimsJSON = try #require(bytes(ofBase64URL: parts[1]))
        header = try #require(try JSONSerialization.jsonObject(with: Data(headerJSON)) as? [String: Any])
        claims = try #require(try JSONSerialization.jsonObject(with: Data(claimsJSON)) as? [String: Any])
        let jwk = try #require(header["jwk"] as? [String: String])
        #expect(jwk["kty"] == "EC" && jwk["crv"] == "P-256")
        let x = try #require(jwk["x"].flatMap(bytes(ofBase64URL:)))
        let y = try #require(jwk["y"].flatMap(bytes(ofBase64URL:)))
        let publicKey = try P256.Signing.PublicKey(rawRepresentation: x + y)
        let signatureBytes = try #require(bytes(ofBase64URL: parts[2]))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        isValid = publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
        thumbprint = JWKThumbprint.ecP256(x: x, y: y)
    }
}

/// The bytes of base64url text without padding, or nil.
func bytes(ofBase64URL text: String) -> [UInt8]? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64).map(Array.init)
}
