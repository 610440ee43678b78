import Foundation
import Testing
@testable import TokenAuthDPoP

/// Base64url without padding (RFC 4648 §5), the JOSE encoding of every binary member of a proof.
@Suite("Base64URL")
struct Base64URLTests {
    @Test("RFC 4648 §10's vectors, without padding, and the URL alphabet's two letters")
    func encode() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded, "\(plain)")
            #expect(Base64URL.decode(encoded) == Data(plain.utf8), "\(encoded)")
        }
        // 0xfb 0xff: standard base64 "+/8=", base64url "-_8".
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("-_8") == Data([0xfb, 0xff]))
    }

    @Test("standard base64's letters and padding, and text that is not base64 at all, do not decode")
    func refusals() {
        for text in ["+/8", "-_8=", "Zm9v YQ", "Zm9v*"] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        }
    }
}
