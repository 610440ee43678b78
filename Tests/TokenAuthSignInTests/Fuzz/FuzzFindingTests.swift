import Crypto
import Foundation
import Testing
import TokenAuthTesting
@testable import TokenAuthSignIn

/// What the sign-in fuzz targets found, each as a specification (the inputs are in `Fuzz/Crashes/<target>/`).
@Suite("Fuzz findings: sign-in")
struct FuzzFindingTests {
    @Test("a request-target whose path starts with // is not the redirect path, though URLComponents reads a host there")
    func doubleSlashTarget() {
        // Fuzz/Crashes/loopback-redirect/double-slash-path.txt
        #expect(LoopbackRedirectListener.Request(target: "//evil.example/callback?code=c&state=s", path: "/callback") == nil)
        #expect(LoopbackRedirectListener.Request(target: "/callback?code=c&state=s", path: "/callback")?.single("code") == "c")
        let absolute = LoopbackRedirectListener.Request(target: "http://127.0.0.1:8400/callback?code=c", path: "/callback")
        #expect(absolute?.single("code") == "c", "the absolute form, which HTTP/1.1 servers must accept, still is")
    }

    @Test("the redirect page escapes a < or a quote that a combining mark follows")
    func escapingBeforeCombiningMark() {
        // Fuzz/Crashes/loopback-redirect/less-than-then-combining-mark.txt: `<` + U+0301 is one Character.
        #expect(RedirectPage.escape("<\u{301}script>\"\u{301}&\u{301}") == "&lt;\u{301}script&gt;&quot;\u{301}&amp;\u{301}")
        let page = RedirectPage.failed("The provider said <\u{301}b>.", advice: "Retry.")
        #expect(!page.html.contains("<\u{301}b"))
    }

    @Test("a device answer whose expires_in is positive but under an attosecond is unusable, not a code that lives 0 s")
    func attosecondLifetime() {
        // Fuzz/Crashes/device-authorization/expires-in-under-an-attosecond.json
        let body = #"{"device_code":"d","user_code":"u","verification_uri":"https://example.com/device","expires_in":1e-95}"#
        let error = #expect(throws: SignInError.self) { try DeviceAuthorization.interpret(Data(body.utf8), status: 200) }
        #expect(error?.code == .unusableDeviceAnswer)
    }

    @Test("a device answer whose verification_uri has an empty host is unusable")
    func emptyVerificationHost() {
        // Fuzz/Crashes/device-authorization/verification-uri-empty-host.json: `https://e@/device`.
        let body = #"{"device_code":"d","user_code":"u","verification_uri":"https://e@/device","expires_in":100}"#
        let error = #expect(throws: SignInError.self) { try DeviceAuthorization.interpret(Data(body.utf8), status: 200) }
        #expect(error?.code == .unusableDeviceAnswer)
    }

    @Test("a token without a kid is checked only with the keys that can make its alg")
    func kidlessTokenKeepsItsAlg() async throws {
        // Fuzz/Crashes/id-token/eddsa-header-es256-signature.jwt: jwt-kit tried every key, and the ES256 key verified.
        let verifier = Self.verifier(keySet: FuzzKeys.keySet)
        let forged = try Self.token(header: #"{"alg":"EdDSA"}"#)
        let error = await #expect(throws: SignInError.self) { try await verifier.verify(forged, nonce: nil) }
        #expect(error?.code == .badSignature)
        let claims = try await verifier.verify(try Self.token(header: #"{"alg":"ES256"}"#), nonce: nil)
        #expect(claims.subject == "fuzz-subject")
    }

    @Test("an elliptic curve key published on another curve than the token's alg is not used")
    func curveMustMatchAlg() async throws {
        // Fuzz/Crashes/jwks/p384-label-on-p256-key.json: jwt-kit made a P-256 key of it for ES256.
        let keySet = FuzzKeys.keySet.replacingOccurrences(of: #""crv":"P-256""#, with: #""crv":"P-384""#)
        let verifier = Self.verifier(keySet: keySet)
        let token = try Self.token(header: #"{"alg":"ES256","kid":"fuzz-es256"}"#)
        let error = await #expect(throws: SignInError.self) { try await verifier.verify(token, nonce: nil) }
        #expect(error?.code == .badSignature)
    }

    @Test("a key published with its private part is left out of the key set")
    func privateKeyIsLeftOut() async throws {
        // Fuzz/Crashes/jwks/private-part-published.json: jwt-kit verified with the key `d` made, whatever x said.
        let withPrivatePart = FuzzKeys.keySet.replacingOccurrences(
            of: #""use":"sig","#, with: #""use":"sig","d":"6C1rCV8pTx0kadocr89UC9HJp7ugxgsA6pKinpkV5Vs","#)
        let verifier = Self.verifier(keySet: withPrivatePart)
        try await verifier.prepare()
        #expect(try await verifier.currentKeys().keys.keys.sorted() == ["fuzz-eddsa"])
        let token = try Self.token(header: #"{"alg":"ES256","kid":"fuzz-es256"}"#)
        let error = await #expect(throws: SignInError.self) { try await verifier.verify(token, nonce: nil) }
        #expect(error?.code == .keyNotYetFetched, "the set was fetched just now, so the kid is not fetched again")

        let onlyPrivate = Self.verifier(keySet: """
            {"keys":[{"kty":"EC","crv":"P-256","kid":"fuzz-es256","d":"6C1rCV8pTx0kadocr89UC9HJp7ugxgsA6pKinpkV5Vs",
            "x":"32wkH69wsMWryu4v5mUP7uVt2vilYU04ljK-nLFvnew","y":"g7a-1DbD0hbwGpGYSHONjlLlc0_41mQatEij_4oI-lQ"}]}
            """)
        let misconfigured = await #expect(throws: SignInError.self) { try await onlyPrivate.prepare() }
        #expect(misconfigured?.code == .jwksMisconfigured)
    }

    private static let now = Date(timeIntervalSince1970: 1_800_000_000)

    private static func verifier(keySet: String) -> IDTokenVerifier {
        IDTokenVerifier(
            issuer: URL(string: "https://issuer.example")!, clientID: "fuzz-client",
            jwksURI: URL(string: "https://issuer.example/jwks")!, transport: CannedTransport(json: keySet),
            wallClock: { now })
    }

    /// A valid token for the verifier above with `header`, signed by the ES256 fuzz key.
    private static func token(header: String) throws -> String {
        let claims = #"{"iss":"https://issuer.example","sub":"fuzz-subject","aud":"fuzz-client","iat":1800000000,"exp":1800003600}"#
        let input = FuzzKeys.base64URL(Data(header.utf8)) + "." + FuzzKeys.base64URL(Data(claims.utf8))
        return input + "." + FuzzKeys.base64URL(try FuzzKeys.es256.signature(for: Data(input.utf8)).rawRepresentation)
    }
}
