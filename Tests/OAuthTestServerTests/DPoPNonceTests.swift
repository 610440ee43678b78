import Foundation
import HTTPTypes
import OAuthTestServer
import OAuthTestSupport
import Testing
import TestSupport
import TokenAuthURLSession

/// Server nonces in DPoP proofs (RFC 9449 §8, §9), the metadata that advertises DPoP, and the executable's options.
@Suite("Local OAuth test server: DPoP nonces, metadata and options")
struct DPoPNonceTests {
    static var nonceConfiguration: OAuthTestServer.Configuration {
        var configuration = OAuthTestServer.Configuration()
        configuration.dpopNonces = true
        return configuration
    }

    @Test("the token endpoint answers a proof without the nonce with use_dpop_nonce and DPoP-Nonce; the retry succeeds")
    func tokenEndpointNonce() async throws {
        try await withServer(Self.nonceConfiguration) { server in
            let key = try DPoPTestKey()
            let first = try await tokenRequest(server, passwordForm(), proof: try key.proof("POST", server.tokenEndpoint))
            #expect(first.status == 400)
            #expect(first.json["error"] as? String == "use_dpop_nonce")
            #expect(first.json["error_description"] is String)
            let nonce = try #require(first.headers.dpopNonce)
            #expect(nonce == server.dpopNonce)
            #expect(nonce.count >= 32, "random, not guessable")

            let retry = try await tokenRequest(server, passwordForm(), proof: try key.proof("POST", server.tokenEndpoint, nonce: nonce))
            #expect(retry.status == 200)
            #expect(retry.json["token_type"] as? String == "DPoP")
            #expect(retry.headers.dpopNonce == nonce, "200s carry the nonce too")
            #expect(server.stats.dpopNonceChallenges == 1)

            let bearer = try await tokenRequest(server, passwordForm(), proof: nil)
            #expect(bearer.status == 200, "a request without a proof needs no nonce")
            #expect(bearer.headers.dpopNonce == nonce)
        }
    }

    @Test("the resource answers a proof without the nonce with 401 use_dpop_nonce; with it, 200 and DPoP-Nonce")
    func resourceNonce() async throws {
        try await withServer(Self.nonceConfiguration) { server in
            let key = try DPoPTestKey()
            let nonce = server.dpopNonce
            let access = try #require(
                try await tokenRequest(server, passwordForm(), proof: try key.proof("POST", server.tokenEndpoint, nonce: nonce))
                    .json["access_token"] as? String)
            let url = server.resourceURL
            let first = try await resourceRequest(url, token: access, proof: try key.proof("GET", url, accessToken: access))
            #expect(first.status == 401)
            let challenge = try #require(first.headers[.wwwAuthenticate])
            #expect(challenge.hasPrefix(#"DPoP error="use_dpop_nonce", error_description=""#), "\(challenge)")
            #expect(challenge.hasSuffix(#", algs="ES256""#), "\(challenge)")
            #expect(first.headers.dpopNonce == nonce)

            let retry = try await resourceRequest(url, token: access, proof: try key.proof("GET", url, accessToken: access, nonce: nonce))
            #expect(retry.status == 200)
            #expect(retry.headers.dpopNonce == nonce)
            #expect(server.stats.dpopNonceChallenges == 1)
        }
    }

    @Test("after a rotation, over HTTP or in Swift, the old nonce is refused with use_dpop_nonce and the new one served")
    func rotation() async throws {
        try await withServer(Self.nonceConfiguration) { server in
            let key = try DPoPTestKey()
            let old = server.dpopNonce
            let rotated = try await call(.post, server.url("/_admin/dpop/rotate-nonce"))
            let new = try #require(rotated.json["nonce"] as? String)
            #expect(new != old)
            #expect(server.dpopNonce == new)
            #expect(try await call(.get, server.url("/_admin/dpop/nonce")).json["nonce"] as? String == new)

            let stale = try await tokenRequest(server, passwordForm(), proof: try key.proof("POST", server.tokenEndpoint, nonce: old))
            #expect(stale.status == 400)
            #expect(stale.json["error"] as? String == "use_dpop_nonce")
            #expect(stale.headers.dpopNonce == new)
            let fresh = try await tokenRequest(server, passwordForm(), proof: try key.proof("POST", server.tokenEndpoint, nonce: new))
            #expect(fresh.status == 200)

            let newer = server.rotateDPoPNonce()
            #expect(newer != new)
            let access = try #require(fresh.json["access_token"] as? String)
            let url = server.resourceURL
            let refused = try await resourceRequest(url, token: access, proof: try key.proof("GET", url, accessToken: access, nonce: new))
            #expect(refused.status == 401)
            #expect(refused.headers[.wwwAuthenticate]?.contains(#"error="use_dpop_nonce""#) == true)
            #expect(refused.headers.dpopNonce == newer)
            #expect(server.stats.dpopNonceChallenges == 2)
        }
    }

    @Test("without nonces on, no answer carries DPoP-Nonce and a proof needs no nonce")
    func noncesOff() async throws {
        try await withServer { server in
            let key = try DPoPTestKey()
            let tokens = try await boundTokens(server, key: key)
            let url = server.resourceURL
            let answer = try await resourceRequest(url, token: tokens.access, proof: try key.proof("GET", url, accessToken: tokens.access))
            #expect(answer.status == 200)
            #expect(answer.headers.dpopNonce == nil)
            #expect(server.stats.dpopNonceChallenges == 0)
        }
    }

    @Test("the metadata lists dpop_signing_alg_values_supported [ES256] only when advertisesDPoP is set")
    func discovery() async throws {
        var configuration = OAuthTestServer.Configuration()
        configuration.advertisesDPoP = true
        try await withServer(configuration) { server in
            for form in [OAuthTestServer.WellKnownURL.oauthAuthorizationServer, .openIDConfigurationInserted] {
                let document = try await call(.get, server.metadataURL(form))
                #expect(document.json["dpop_signing_alg_values_supported"] as? [String] == ["ES256"], "\(form)")
            }
        }
        try await withServer { server in
            let document = try await call(.get, server.metadataURL(.oauthAuthorizationServer))
            #expect(document.status == 200)
            #expect(document.json["dpop_signing_alg_values_supported"] == nil)
        }
    }

    @Test("oauth-test-server --dpop --dpop-nonce --dpop-required --dpop-refusal-status 403 configure DPoP")
    func executableOptions() async throws {
        let server = try startCommand(
            try OAuthTestServerTests.executable(),
            ["--client-id", "strict", "--dpop-required", "--dpop", "--dpop-nonce", "--dpop-refusal-status", "403"])
        defer { if server.isRunning { kill(server.pid, SIGTERM) } }
        let printed = try await server.waitForStdout(containing: "\n", within: .seconds(60))
        try #require(printed, "it ended without printing a line: \(server.stderrSoFar)")
        let line = String(server.stdoutSoFar.prefix { $0 != "\n" })
        let baseURL = try #require(URL(string: String(line.dropFirst("listening on ".count))))

        let metadata = try await call(.get, baseURL.appendingPathComponent(".well-known/oauth-authorization-server"))
        #expect(metadata.json["dpop_signing_alg_values_supported"] as? [String] == ["ES256"])
        let form = Data("grant_type=client_credentials&client_id=strict".utf8)
        let headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        let refused = try await call(.post, baseURL.appendingPathComponent("token"), headers: headers, body: form)
        #expect(refused.status == 403)
        #expect(refused.json["error"] as? String == "invalid_dpop_proof")
        #expect(refused.headers.dpopNonce?.isEmpty == false)

        kill(server.pid, SIGTERM)
        let result = await server.finish()
        #expect(result.status == 0, "\(result.stderr)")

        let usage = try await runCommand(try OAuthTestServerTests.executable(), ["--dpop-required"])
        #expect(usage.status == 2, "--dpop-required needs a --client-id before it")
    }
}
