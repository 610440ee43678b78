import Foundation
import TokenAuth

/// The text a TPM key is stored as in a `ProofKey`'s material: the public blob and the private blob, each base64url
/// without padding (RFC 4648 §5), joined by a dot. Only the TPM that made them can use them.
enum TPMKeyMaterial {
    static func encode(_ key: TPMWrappedKey) -> String {
        base64URL(key.publicBlob) + "." + base64URL(key.privateBlob)
    }

    /// The wrapped key the material holds.
    ///
    /// - Throws: `TokenAuthError` with `proofKeyUnusable` when it is not two base64url blobs, or they are not a
    ///   TPM-wrapped P-256 signing key. The message never quotes the material.
    static func decode(_ material: String) throws(TokenAuthError) -> TPMWrappedKey {
        let parts = material.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let publicBlob = bytes(ofBase64URL: parts[0]),
            let privateBlob = bytes(ofBase64URL: parts[1])
        else {
            throw .proofKeyUnusable("The session's stored TPM key is not two base64url blobs joined by a dot.")
        }
        do throws(TPMError) {
            return try TPMWrappedKey(publicBlob: publicBlob, privateBlob: privateBlob)
        } catch {
            throw error.tokenAuthError
        }
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of base64url text without padding, or nil for anything else (standard base64's `+`, `/` and `=`
    /// included).
    private static func bytes(ofBase64URL text: Substring) -> [UInt8]? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }
}
