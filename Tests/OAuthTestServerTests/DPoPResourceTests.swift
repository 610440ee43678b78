import Foundation
import HTTPTypes
import OAuthTestServer
import OAuthTestSupport
import Testing
import TokenAuthURLSession

/// The protected resource with DPoP-bound tokens (RFC 9449 §7), and the thumbprint they are bound by (RFC 7638).
@Suite("Local OAuth test server: DPoP at the resource")
struct DPoPResourceTests {
    @Test("the thumbprint of a fixed P-256 key is the one computed independently")
    func thumbprint() throws {
        // The key of the private scalar SHA-256("TokenKeyring DPoP test key"); x, y and the thumbprint computed with
        // python3's cryptography and hashlib:
        //   d = int.from_bytes(hashlib.sha256(b"TokenKeyring DPoP test key").digest(), "big")
        //   n = ec.derive_private_key(d, ec.SECP256R1()).public_key().public_numbers()
        //   b64(hashlib.sha256(('{"crv":"P-256","kty":"EC","x":"%s","y":"%s"}' % (b64(x), b64(y))).encode()).digest())
        let scalar = Data(hexadecimal: "e9398a92d232f12a53af2854984fef1e4dcecbb43a8985b1fba708610499e8ad")
        let key = try DPoPTestKey(rawScalar: scalar)
        #expect(key.x == "G2KkdbX145dYYUnMOim-hYoIUOs5FWuJskmEXVEfGxo")
        #expect(key.y == "oht9uUwXEuLKDhyperL7xknxcc7wSNsxYT0xd3dhnHU")
        #expect(JWKThumbprint.p256(x: key.x, y: key.y) == "kaTakwq5Gvld-qc9_3en9eyYQAuBaUyEvpmGcTXFGL0")
    }

    @Test("a bound token with a proof of its key gets the echo, with token_type DPoP and its jkt")
    func boundTokenServed() async throws {
        try await withServer { server in
            let key = try DPoPTestKey()
            let tokens = try await boundTokens(server, key: key)
            let url = server.url("/resource/things")
            let proof = try key.proof("GET", url, accessToken: tokens.access)
            let answer = try await resourceRequest(url, scheme: "dpop", token: tokens.access, proof: proof)
            #expect(answer.status == 200)
            #expect(answer.json["token_type"] as? String == "DPoP")
            #expect(answer.json["jkt"] as? String == key.thumbprint)
            #expect(answer.json["token_subject"] as? String == "alice")
            #expect(answer.json["path"] as? String == "/resource/things")

            let bearer = server.issueTokens(clientID: "test-client", subject: "bob").accessToken
            let plain = try await call(.get, server.resourceURL, bearer: bearer)
            #expect(plain.status == 200)
            #expect(plain.json["token_type"] as? String == "Bearer")
            #expect(plain.json["jkt"] == nil)
        }
    }

    @Test("a bound token sent as Bearer gets 401 with a DPoP invalid_token challenge")
    func boundTokenAsBearer() async throws {
        try await withServer { server in
            let tokens = try await boundTokens(server, key: try DPoPTestKey())
            let answer = try await call(.get, server.resourceURL, bearer: tokens.access)
            #expect(answer.status == 401)
            let challenge = try #require(answer.headers[.wwwAuthenticate])
            #expect(challenge.hasPrefix(#"DPoP error="invalid_token", error_description=""#), "\(challenge)")
            #expect(challenge.hasSuffix(#", algs="ES256""#), "\(challenge)")
            #expect(answer.json["error"] as? String == "invalid_token")
        }
    }

    @Test("wrong htu, htm or ath, a replayed jti, another key or no proof each get 401 invalid_dpop_proof")
    func refusedProofs() async throws {
        try await withServer { server in
            let key = try DPoPTestKey()
            let tokens = try await boundTokens(server, key: key)
            let url = server.resourceURL
            let replayed = try key.proof("GET", url, accessToken: tokens.access)
            #expect(try await resourceRequest(url, token: tokens.access, proof: replayed).status == 200)
            let cases: [(String, String?)] = [
                ("wrong htu", try key.proof("GET", server.url("/resource/other"), accessToken: tokens.access)),
                ("wrong htm", try key.proof("POST", url, accessToken: tokens.access)),
                ("wrong ath", try key.proof("GET", url, accessToken: tokens.access + "x")),
                ("no ath", try key.proof("GET", url)),
                ("replayed jti", replayed),
                ("another key", try DPoPTestKey().proof("GET", url, accessToken: tokens.access)),
                ("no proof", nil),
            ]
            for (name, proof) in cases {
                let answer = try await resourceRequest(url, token: tokens.access, proof: proof)
                #expect(answer.status == 401, "\(name)")
                let challenge = answer.headers[.wwwAuthenticate] ?? ""
                #expect(challenge.hasPrefix(#"DPoP error="invalid_dpop_proof", error_description=""#), "\(name): \(challenge)")
                #expect(challenge.hasSuffix(#", algs="ES256""#), "\(name): \(challenge)")
                #expect(answer.json["error"] as? String == "invalid_dpop_proof", "\(name)")
            }
            #expect(server.stats.dpopProofRefusals == cases.count)
            #expect(try await resourceRequest(url, token: tokens.access, proof: try key.proof("GET", url, accessToken: tokens.access)).status == 200)
        }
    }

    @Test("an unknown, expired or unbound token under the DPoP scheme gets 401 DPoP invalid_token")
    func invalidTokenUnderDPoP() async throws {
        try await withServer { server in
            let key = try DPoPTestKey()
            let url = server.resourceURL
            let unbound = server.issueTokens(clientID: "test-client", subject: "alice").accessToken
            for token in ["made-up", unbound] {
                let answer = try await resourceRequest(url, token: token, proof: try key.proof("GET", url, accessToken: token))
                #expect(answer.status == 401)
                #expect(answer.headers[.wwwAuthenticate]?.hasPrefix(#"DPoP error="invalid_token""#) == true)
                #expect(answer.json["error"] as? String == "invalid_token")
            }
            let seeded = server.issueTokens(clientID: "test-client", subject: "alice", dpopThumbprint: key.thumbprint)
            #expect(server.revokeAllAccessTokens() == 2)
            let revoked = try await resourceRequest(
                url, token: seeded.accessToken, proof: try key.proof("GET", url, accessToken: seeded.accessToken))
            #expect(revoked.status == 401)
            #expect(revoked.headers[.wwwAuthenticate]?.hasPrefix(#"DPoP error="invalid_token""#) == true)
        }
    }

    @Test("the empty-401 fault answers the next DPoP resource requests with no body and no challenge, then stops")
    func emptyUnauthorizedFault() async throws {
        try await withServer { server in
            let key = try DPoPTestKey()
            let tokens = try await boundTokens(server, key: key)
            let set = try await call(.post, server.url("/_admin/faults"), body: Data(#"{"emptyDPoPUnauthorizedAnswers":1}"#.utf8))
            #expect(set.status == 200)
            server.updateFaults { $0.emptyDPoPUnauthorizedAnswers += 1 }
            #expect(server.faults.emptyDPoPUnauthorizedAnswers == 2)

            let bearer = server.issueTokens(clientID: "test-client", subject: "bob").accessToken
            #expect(try await call(.get, server.resourceURL, bearer: bearer).status == 200, "Bearer requests take none")
            for _ in 0..<2 {
                let request = HTTPRequest(
                    method: .get, url: server.resourceURL,
                    headerFields: [
                        .authorization: "DPoP \(tokens.access)",
                        HTTPField.Name("DPoP")!: try key.proof("GET", server.resourceURL, accessToken: tokens.access),
                    ])
                let (response, body) = try await URLSessionHTTPTransport().send(request, body: nil)
                #expect(response.status.code == 401)
                #expect(body.isEmpty)
                #expect(response.headerFields[.wwwAuthenticate] == nil)
            }
            let after = try await resourceRequest(
                server.resourceURL, token: tokens.access, proof: try key.proof("GET", server.resourceURL, accessToken: tokens.access))
            #expect(after.status == 200)
            #expect(server.faults.emptyDPoPUnauthorizedAnswers == 0)
        }
    }

    @Test("the admin resource answers a bound token without the admin scope with a DPoP insufficient_scope")
    func insufficientScopeUnderDPoP() async throws {
        try await withServer { server in
            let key = try DPoPTestKey()
            let token = server.issueTokens(clientID: "test-client", subject: "alice", scope: "read", dpopThumbprint: key.thumbprint)
                .accessToken
            let url = server.adminResourceURL
            let answer = try await resourceRequest(url, token: token, proof: try key.proof("GET", url, accessToken: token))
            #expect(answer.status == 403)
            #expect(answer.headers[.wwwAuthenticate]?.hasPrefix(#"DPoP error="insufficient_scope""#) == true)
        }
    }
}

extension Data {
    /// The bytes of an even-length hexadecimal string.
    init(hexadecimal text: String) {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
}
