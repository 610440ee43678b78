import Foundation
@testable import OAuthTestServer
import Testing

/// The server's DPoP rules that no request on 127.0.0.1 with an ephemeral port can reach: `htu` with default ports,
/// and how long a `jti` is remembered.
@Suite("Local OAuth test server: DPoP rules")
struct DPoPRuleTests {
    @Test(
        "htu matches scheme and host in any case, the scheme's default port, the path exactly, whatever the query",
        arguments: [
            ("http://Example.COM/token", "http://example.com:80/token", true),
            ("HTTP://example.com:80/token", "http://example.com/token", true),
            ("http://127.0.0.1:8080/token?x=1#f", "http://127.0.0.1:8080/token", true),
            ("http://example.com", "http://example.com:80/", true),
            ("https://example.com/token", "http://example.com:443/token", false),
            ("http://example.com:8080/token", "http://example.com/token", false),
            ("http://example.com/Token", "http://example.com/token", false),
            ("http://example.com/token/", "http://example.com/token", false),
            ("http://other.example/token", "http://example.com/token", false),
            ("/token", "http://example.com/token", false),
        ])
    func htu(claimed: String, expected: String, same: Bool) {
        #expect(DPoPProof.sameResource(claimed, expected) == same)
    }

    @Test("a jti is refused while its proof could be accepted, and forgotten after")
    func jtiMemory() {
        var state = DPoPState()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let proof = DPoPProof(thumbprint: "t", jti: "one", issuedAt: start, nonce: nil)
        #expect(state.admit(proof, requireNonce: false, now: start) == .admitted)
        #expect(state.admit(proof, requireNonce: false, now: start.addingTimeInterval(59)) == .replayed)
        #expect(state.admit(proof, requireNonce: false, now: start.addingTimeInterval(61)) == .admitted)
    }

    @Test("with nonces required, a proof without the current nonce is not admitted, and its jti not spent")
    func nonces() {
        var state = DPoPState()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let old = state.nonce
        var proof = DPoPProof(thumbprint: "t", jti: "one", issuedAt: now, nonce: nil)
        guard case .nonceNeeded = state.admit(proof, requireNonce: true, now: now) else {
            Issue.record("a proof without a nonce was admitted")
            return
        }
        proof.nonce = old
        #expect(state.rotateNonce() != old)
        guard case .nonceNeeded = state.admit(proof, requireNonce: true, now: now) else {
            Issue.record("a proof with the old nonce was admitted")
            return
        }
        proof.nonce = state.nonce
        #expect(state.admit(proof, requireNonce: true, now: now) == .admitted)
        #expect(state.admit(proof, requireNonce: false, now: now) == .replayed)
    }
}
