import Foundation
import Testing
@testable import TokenAuth
@testable import TokenAuthSignIn

@Suite("PKCE (RFC 7636)")
struct PKCETests {
    @Test("the S256 challenge of RFC 7636 Appendix B's verifier")
    func appendixB() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.method == "S256")
    }

    @Test("a fresh verifier is 43 base64url characters (32 random bytes) and differs every time")
    func freshVerifiers() {
        let verifiers = (0..<100).map { _ in PKCE().verifier }
        #expect(Set(verifiers).count == 100)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for verifier in verifiers {
            #expect(verifier.count == 43)
            #expect(verifier.allSatisfy(alphabet.contains))
        }
    }

    @Test("description shows the challenge, never the verifier")
    func description() {
        let pkce = PKCE()
        #expect(!"\(pkce)".contains(pkce.verifier))
        #expect("\(pkce)".contains(pkce.challenge))
    }
}
