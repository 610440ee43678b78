import Crypto
import Foundation
import HTTPTypes
import OAuthTestServer
import OAuthTestSupport
import Testing
import TokenAuthURLSession

/// The token endpoint with DPoP (RFC 9449 §5, §10): bound grants, refreshes with the same key, refusals that spend
/// nothing.
@Suite("Local OAuth test server: DPoP at the token endpoint")
struct DPoPTokenEndpointTests {
    @Test("a grant with a valid proof gets token_type DPoP, tokens bound to the key's thumbprint, and is counted")
    func boundGrant() async throws {
        try await withServer { server in
            let key = try DPoPTestKey()
            let answer = try await tokenRequest(server, passwordForm(), proof: try key.proof("POST", server.tokenEndpoint))
            #expect(answer.status == 200)
            #expect(answer.json["token_type"] as? String == "DPoP")
            #expect(answer.json["cnf"] == nil)
            let access = try #require(answer.json["access_token"] as? String)
            let refresh = try #require(answer.json["refresh_token"] as? String)
            #expect(server.dpopThumbprint(ofToken: access) == key.thumbprint)
            #expect(server.dpopThumbprint(ofToken: refresh) == key.thumbprint)
            #expect(server.stats.dpopBoundGrants == 1)
            #expect(server.stats.dpopProofRefusals == 0)
            #expect(answer.headers.dpopNonce == nil, "no nonce header while nonces are off")
            let stats = try await call(.get, server.url("/_admin/stats"))
            #expect(stats.json["dpopBoundGrants"] as? Int == 1)
            #expect(stats.json["dpopNonceChallenges"] as? Int == 0)
            #expect(stats.json["dpopProofRefusals"] as? Int == 0)
        }
    }

    @Test("without a proof nothing changes: Bearer in the configured case, no binding, nothing counted")
    func unboundGrant() async throws {
        var configuration = OAuthTestServer.Configuration()
        configuration.tokenType = "bearer"
        try await withServer(configuration) { server in
            let answer = try await tokenRequest(server, passwordForm(), proof: nil)
            #expect(answer.status == 200)
            #expect(answer.json["token_type"] as? String == "bearer")
            let access = try #require(answer.json["access_token"] as? String)
            #expect(server.dpopThumbprint(ofToken: access) == nil)
            #expect(server.stats.dpopBoundGrants == 0)
        }
    }

    @Test("client_credentials and the device code grant bind their tokens to the proof's key too")
    func otherGrantsBind() async throws {
        let configuration = OAuthTestServer.Configuration(clients: [OAuthTestServer.RegisteredClient(id: "test-client"), confidentialClient])
        try await withServer(configuration) { server in
            let key = try DPoPTestKey()
            let credentials = try await tokenRequest(
                server,
                ["grant_type": "client_credentials", "client_id": confidentialClient.id, "client_secret": confidentialClient.secret!],
                proof: try key.proof("POST", server.tokenEndpoint))
            #expect(credentials.json["token_type"] as? String == "DPoP")
            #expect(server.dpopThumbprint(ofToken: try #require(credentials.json["access_token"] as? String)) == key.thumbprint)

            let device = try await call(
                .post, server.deviceAuthorizationEndpoint, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: Data("client_id=test-client".utf8))
            let deviceCode = try #require(device.json["device_code"] as? String)
            #expect(server.decide(userCode: try #require(device.json["user_code"] as? String), .approve(subject: "ada")))
            let polled = try await tokenRequest(
                server,
                ["grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": deviceCode, "client_id": "test-client"],
                proof: try key.proof("POST", server.tokenEndpoint))
            #expect(polled.status == 200)
            #expect(polled.json["token_type"] as? String == "DPoP")
            #expect(server.dpopThumbprint(ofToken: try #require(polled.json["refresh_token"] as? String)) == key.thumbprint)
            #expect(server.stats.dpopBoundGrants == 2)
        }
    }

    @Test("a bound refresh token refreshes with a proof of its key, and gets new tokens bound to it")
    func refreshWithSameKey() async throws {
        try await withServer { server in
            let key = try DPoPTestKey()
            let tokens = try await boundTokens(server, key: key)
            let refreshed = try await tokenRequest(
                server, ["grant_type": "refresh_token", "refresh_token": tokens.refresh, "client_id": "test-client"],
                proof: try key.proof("POST", server.tokenEndpoint))
            #expect(refreshed.status == 200)
            #expect(refreshed.json["token_type"] as? String == "DPoP")
            let access = try #require(refreshed.json["access_token"] as? String)
            #expect(access != tokens.access)
            #expect(server.dpopThumbprint(ofToken: access) == key.thumbprint)
            #expect(server.stats.successfulRefreshes == 1)
            #expect(server.stats.dpopBoundGrants == 2)
        }
    }

    @Test("a bound refresh token with another key or without a proof is refused, and stays usable after")
    func refreshWithOtherKeyOrNone() async throws {
        try await withServer { server in
            let key = try DPoPTestKey()
            let tokens = try await boundTokens(server, key: key)
            let form = ["grant_type": "refresh_token", "refresh_token": tokens.refresh, "client_id": "test-client"]
            let otherKey = try await tokenRequest(server, form, proof: try DPoPTestKey().proof("POST", server.tokenEndpoint))
            #expect(otherKey.status == 400)
            #expect(otherKey.json["error"] as? String == "invalid_dpop_proof")
            let none = try await tokenRequest(server, form, proof: nil)
            #expect(none.status == 400)
            #expect(none.json["error"] as? String == "invalid_dpop_proof")
            #expect(server.stats.dpopProofRefusals == 2)
            #expect(server.stats.reuseDetections == 0)

            let right = try await tokenRequest(server, form, proof: try key.proof("POST", server.tokenEndpoint))
            #expect(right.status == 200, "the refused attempts spent nothing: \(right.json)")
            #expect(server.stats.successfulRefreshes == 1)
        }
    }

    @Test("an invalid proof on a refresh is refused and spends nothing; on a password grant it issues nothing")
    func invalidProofSpendsNothing() async throws {
        try await withServer { server in
            let key = try DPoPTestKey()
            let tokens = try await boundTokens(server, key: key)
            let form = ["grant_type": "refresh_token", "refresh_token": tokens.refresh, "client_id": "test-client"]
            let badSignature = try key.proof("POST", server.tokenEndpoint, signer: try DPoPTestKey())
            let refused = try await tokenRequest(server, form, proof: badSignature)
            #expect(refused.status == 400)
            #expect(refused.json["error"] as? String == "invalid_dpop_proof")
            #expect(try await tokenRequest(server, form, proof: try key.proof("POST", server.tokenEndpoint)).status == 200)

            let wrongMethod = try await tokenRequest(server, passwordForm(), proof: try key.proof("GET", server.tokenEndpoint))
            #expect(wrongMethod.json["error"] as? String == "invalid_dpop_proof")
            #expect(wrongMethod.json["access_token"] == nil)
            #expect(server.stats.dpopBoundGrants == 2)
            #expect(server.stats.dpopProofRefusals == 2)
        }
    }

    @Test("proofs that break a rule of RFC 9449 §4.3 are each refused at the token endpoint")
    func malformedProofs() async throws {
        try await withServer { server in
            let key = try DPoPTestKey()
            let url = server.tokenEndpoint
            var withPrivateKey = key.jwk
            withPrivateKey["d"] = DPoPTestKey.base64URL(key.privateKey.rawRepresentation)
            // Each proof is made just before it is sent: a slow machine must not age one made earlier into the window.
            let proofs: [(String, () throws -> String)] = [
                ("not a JWS", { "not.a.jws" }),
                ("typ JWT", { try key.proof("POST", url, header: ["typ": "JWT"]) }),
                ("alg RS256", { try key.proof("POST", url, header: ["alg": "RS256"]) }),
                ("no jwk", { try key.proof("POST", url, header: ["jwk": NSNull()]) }),
                ("private jwk", { try key.proof("POST", url, header: ["jwk": withPrivateKey]) }),
                ("RSA jwk", { try key.proof("POST", url, header: ["jwk": ["kty": "RSA", "n": "AQAB", "e": "AQAB"]]) }),
                ("other URL", { try key.proof("POST", server.url("/other")) }),
                ("other port", { try key.proof("POST", URL(string: "http://127.0.0.1:\(server.port + 1)/token")!) }),
                ("no jti", { try key.proof("POST", url, claims: ["jti": NSNull()]) }),
                ("no iat", { try key.proof("POST", url, claims: ["iat": NSNull()]) }),
                ("iat 90 s old", { try key.proof("POST", url, issuedAt: Date().addingTimeInterval(-90)) }),
                ("iat 90 s ahead", { try key.proof("POST", url, issuedAt: Date().addingTimeInterval(90)) }),
            ]
            for (name, makeProof) in proofs {
                let answer = try await tokenRequest(server, passwordForm(), proof: try makeProof())
                #expect(answer.status == 400, "\(name)")
                #expect(answer.json["error"] as? String == "invalid_dpop_proof", "\(name): \(answer.json)")
            }
            #expect(server.stats.dpopProofRefusals == proofs.count)
            #expect(server.stats.passwordGrants == proofs.count)
            #expect(server.stats.dpopBoundGrants == 0)

            // Accepted: scheme and host in another case, a query; iat within 60 s either way.
            let caseInsensitive = URL(string: "HTTP://127.0.0.1:\(server.port)/token?ignored=1")!
            #expect(try await tokenRequest(server, passwordForm(), proof: try key.proof("POST", caseInsensitive)).status == 200)
            for offset in [-30.0, 30.0] {
                let proof = try key.proof("POST", url, issuedAt: Date().addingTimeInterval(offset))
                #expect(try await tokenRequest(server, passwordForm(), proof: proof).status == 200, "iat \(offset) s")
            }
        }
    }

    @Test("a replayed proof is refused at the token endpoint")
    func replayAtTokenEndpoint() async throws {
        try await withServer { server in
            let proof = try DPoPTestKey().proof("POST", server.tokenEndpoint)
            #expect(try await tokenRequest(server, passwordForm(), proof: proof).status == 200)
            let replayed = try await tokenRequest(server, passwordForm(), proof: proof)
            #expect(replayed.status == 400)
            #expect(replayed.json["error"] as? String == "invalid_dpop_proof")
        }
    }

    @Test("a client that requires DPoP is refused without a proof, served with one")
    func clientRequiresDPoP() async throws {
        let configuration = OAuthTestServer.Configuration(clients: [OAuthTestServer.RegisteredClient(id: "strict", requiresDPoP: true)])
        try await withServer(configuration) { server in
            let refused = try await tokenRequest(server, passwordForm(clientID: "strict"), proof: nil)
            #expect(refused.status == 400)
            #expect(refused.json["error"] as? String == "invalid_dpop_proof")
            #expect(refused.json["error_description"] is String)
            let proof = try DPoPTestKey().proof("POST", server.tokenEndpoint)
            let served = try await tokenRequest(server, passwordForm(clientID: "strict"), proof: proof)
            #expect(served.status == 200)
            #expect(served.json["token_type"] as? String == "DPoP")
        }
    }

    @Test("an authorization request's dpop_jkt binds its code: a proof of another key or none gets invalid_grant")
    func dpopJKTBindsTheCode() async throws {
        try await withServer { server in
            let key = try DPoPTestKey()
            let form = { (code: String) in
                ["grant_type": "authorization_code", "code": code, "redirect_uri": Self.redirectURI,
                 "code_verifier": Self.verifier, "client_id": "test-client"]
            }
            let other = try await tokenRequest(
                server, form(try await Self.code(server, dpopJKT: key.thumbprint)),
                proof: try DPoPTestKey().proof("POST", server.tokenEndpoint))
            #expect(other.status == 400)
            #expect(other.json["error"] as? String == "invalid_grant")
            let none = try await tokenRequest(server, form(try await Self.code(server, dpopJKT: key.thumbprint)), proof: nil)
            #expect(none.status == 400)
            #expect(none.json["error"] as? String == "invalid_grant")

            let right = try await tokenRequest(
                server, form(try await Self.code(server, dpopJKT: key.thumbprint)), proof: try key.proof("POST", server.tokenEndpoint))
            #expect(right.status == 200)
            #expect(right.json["token_type"] as? String == "DPoP")
            #expect(server.dpopThumbprint(ofToken: try #require(right.json["access_token"] as? String)) == key.thumbprint)
        }
    }

    static let redirectURI = "http://127.0.0.1:9/callback"
    static let verifier = "dpop-test-verifier-0123456789-0123456789-0123456789"

    /// A code from the authorization endpoint for a request with `dpop_jkt`, read from its redirect.
    static func code(_ server: OAuthTestServer, dpopJKT: String) async throws -> String {
        var components = URLComponents(url: server.authorizationEndpoint, resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: "test-client"),
            URLQueryItem(name: "redirect_uri", value: redirectURI),
            URLQueryItem(name: "code_challenge", value: DPoPTestKey.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))),
            URLQueryItem(name: "code_challenge_method", value: "S256"), URLQueryItem(name: "dpop_jkt", value: dpopJKT),
        ]
        let request = HTTPRequest(method: .get, url: components.url!)
        let (response, _) = try await URLSessionHTTPTransport().send(request, body: nil, redirects: .refuse)
        let location = try #require(response.headerFields[.location].flatMap(URLComponents.init(string:)))
        return try #require(location.queryItems?.first { $0.name == "code" }?.value)
    }

    @Test("dpopProofRefusalStatus sets the status of invalid_dpop_proof, and only of it")
    func refusalStatus() async throws {
        var configuration = OAuthTestServer.Configuration(clients: [OAuthTestServer.RegisteredClient(id: "test-client", requiresDPoP: true)])
        configuration.dpopProofRefusalStatus = 403
        try await withServer(configuration) { server in
            let refused = try await tokenRequest(server, passwordForm(), proof: nil)
            #expect(refused.status == 403)
            #expect(refused.json["error"] as? String == "invalid_dpop_proof")
            var wrongPassword = passwordForm()
            wrongPassword["password"] = "wrong"
            let otherError = try await tokenRequest(server, wrongPassword, proof: try DPoPTestKey().proof("POST", server.tokenEndpoint))
            #expect(otherError.status == 400)
            #expect(otherError.json["error"] as? String == "invalid_grant")
        }
    }
}
