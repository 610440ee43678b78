import Foundation
import Synchronization
import Testing
import TokenAuthTPM

/// TPMDevice against swtpm: one test at a time with every other suite of ``SoftwareTPMTests``, since the TPM (and
/// swtpm's one connection) is shared. Every test makes its own keys, so the order does not matter; the clearing test
/// is last all the same.
extension SoftwareTPMTests {
    @Suite
    struct TPMSigningTests {
        let message = Data("header.payload".utf8)

        @Test("a new key signs a SHA-256 digest: valid for that digest, invalid for another")
        func signAndVerify() throws {
            try SoftwareTPM.withDevice { device in
                let key = try device.createSigningKey()
                let signature = try device.sign(digest: digest(message), with: key)
                #expect(signature.count == 64)
                #expect(try isValid(signature, of: message, by: key))
                #expect(try !isValid(signature, of: Data("header.other".utf8), by: key))
                // A second sign uses the loaded key again, and ECDSA's nonce makes it a different, valid signature.
                let again = try device.sign(digest: digest(message), with: key)
                #expect(again != signature)
                #expect(try isValid(again, of: message, by: key))
            }
        }

        @Test("a second device, as a second process is, loads the stored blobs and signs with them")
        func secondDeviceLoadsStoredBlobs() throws {
            let stored = try SoftwareTPM.withDevice { device in
                let key = try device.createSigningKey()
                return (key.publicBlob, key.privateBlob)
            }
            let signature = try SoftwareTPM.withDevice { device in
                let key = try TPMWrappedKey(publicBlob: stored.0, privateBlob: stored.1)
                return (key, try device.sign(digest: digest(message), with: key))
            }
            #expect(try isValid(signature.1, of: message, by: signature.0))
        }

        @Test("the key's public area has exactly fixedTPM, fixedParent, sensitiveDataOrigin, userWithAuth and sign")
        func attributesAreExactlyTheFive() throws {
            let key = try SoftwareTPM.withDevice { try $0.createSigningKey() }
            #expect(key.attributes == [.fixedTPM, .fixedParent, .sensitiveDataOrigin, .userWithAuth, .sign])
            #expect(key.attributes == .signingKey)
            #expect(!key.attributes.contains(.decrypt))
            #expect(!key.attributes.contains(.restricted))
            // Read back from the stored blob, not from what the device kept.
            let reread = try TPMWrappedKey(publicBlob: key.publicBlob, privateBlob: key.privateBlob)
            #expect(reread.attributes == .signingKey)
            #expect(reread.x == key.x && reread.y == key.y)
            #expect(key.x.count == 32 && key.y.count == 32)
        }

        @Test("signs with more keys than the TPM has object slots, cached or not", arguments: [0, 1, 8])
        func moreKeysThanSlots(loadedKeyCapacity: Int) throws {
            try SoftwareTPM.withDevice(loadedKeyCapacity: loadedKeyCapacity) { device in
                let keys = try (0..<4).map { _ in try device.createSigningKey() }
                for _ in 0..<2 {
                    for key in keys {
                        let signature = try device.sign(digest: digest(message), with: key)
                        #expect(try isValid(signature, of: message, by: key))
                    }
                }
            }
        }

        @Test("signs from several threads at once on one device: the calls wait for each other, and all verify")
        func concurrentSigns() throws {
            try SoftwareTPM.withDevice { device in
                let keys = try (0..<2).map { _ in try device.createSigningKey() }
                let results = Mutex<[Bool]>([])
                DispatchQueue.concurrentPerform(iterations: 16) { index in
                    let key = keys[index % keys.count]
                    let valid = (try? isValid(device.sign(digest: digest(message), with: key), of: message, by: key))
                    results.withLock { $0.append(valid ?? false) }
                }
                #expect(results.withLock { $0 } == Array(repeating: true, count: 16))
            }
        }

        @Test("the probe finds the software TPM through TPM2TOOLS_TCTI and proves it answers")
        func probeFindsSoftwareTPM() throws {
            let tcti = try SoftwareTPM.tcti()
            let result = TPMAvailability.probe(environment: ["TPM2TOOLS_TCTI": tcti], devicePath: "/nonexistent/tpmrm0")
            #expect(try result.get() == tcti)
        }

        @Test("after TPM2_Clear the old blobs are keyUnusable, and a new key works")
        func clearedTPMRefusesOldKeys() throws {
            let old = try SoftwareTPM.withDevice { try $0.createSigningKey() }
            try SoftwareTPM.clear()
            try SoftwareTPM.withDevice { device in
                let error = #expect(throws: TPMError.self) {
                    try device.sign(digest: digest(message), with: old)
                }
                #expect(error?.code == .keyUnusable)
                let loadError = #expect(throws: TPMError.self) { try device.load(old) }
                #expect(loadError?.code == .keyUnusable)
                print("sign with a key from before TPM2_Clear: \(error.map(String.init(describing:)) ?? "no error")")
                let new = try device.createSigningKey()
                #expect(new.x != old.x)
                #expect(try isValid(try device.sign(digest: digest(message), with: new), of: message, by: new))
            }
        }
    }
}
