import Foundation
import OAuthTestServer
import Testing
@testable import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn

@Suite("IDTokenVerifier: id_token signatures and claims against the local server's JWKS")
struct IDTokenVerifierTests {
    // MARK: - Signatures

    @Test("a token signed by a published key is accepted", arguments: [OAuthTestServer.IDTokenSigner.rs256, .es256])
    func publishedKeys(signer: OAuthTestServer.IDTokenSigner) async throws {
        try await withOpenID { fixture in
            let token = await fixture.server.mintIDToken(fixture.claims(nonce: "n-1"), signer: signer)
            let claims = try await fixture.verifier.verify(token, nonce: "n-1")
            #expect(claims.issuer == fixture.server.issuer.absoluteString)
            #expect(claims.subject == OAuthTestServer.subjectIdentifier(ofUser: "alice"))
            #expect(claims.audiences == [OpenIDFixture.clientID])
            #expect(claims.displayName == "alice")
            #expect(fixture.server.stats.jwksRequests == 1)
            // The keys are cached: a second token needs no fetch.
            _ = try await fixture.verifier.verify(token, nonce: "n-1")
            #expect(fixture.server.stats.jwksRequests == 1)
        }
    }

    @Test("a token signed by another key under a published kid has a bad signature")
    func badSignature() async throws {
        try await withOpenID { fixture in
            let token = await fixture.server.mintIDToken(fixture.claims(), signer: .foreignKey)
            let error = await idTokenError { _ = try await fixture.verifier.verify(token, nonce: nil) }
            #expect(error == .badSignature)
            #expect(error?.isTransient == false)
        }
    }

    @Test("alg none and HS256 are refused before any key is fetched", arguments: [OAuthTestServer.IDTokenSigner.none, .hs256])
    func unsignedAndSymmetric(signer: OAuthTestServer.IDTokenSigner) async throws {
        try await withOpenID { fixture in
            let token = await fixture.server.mintIDToken(fixture.claims(), signer: signer)
            let error = await idTokenError { _ = try await fixture.verifier.verify(token, nonce: nil) }
            #expect(error == .unsupportedAlgorithm)
            #expect(fixture.server.stats.jwksRequests == 0)
        }
    }

    @Test("an unknown kid fetches the key set again exactly once, and not again within the refetch interval")
    func unknownKeyRefetchesOnce() async throws {
        try await withOpenID { fixture in
            _ = try await fixture.verifier.verify(await fixture.server.mintIDToken(fixture.claims()), nonce: nil)
            #expect(fixture.server.stats.jwksRequests == 1)

            // Just fetched: an unknown kid does not make it fetch again, and says the check can succeed later.
            let early = await fixture.server.mintIDToken(fixture.claims(), signer: .unknownKey)
            let tooSoon = await idTokenError { _ = try await fixture.verifier.verify(early, nonce: nil) }
            #expect(tooSoon == .keyNotYetFetched)
            #expect(tooSoon?.isTransient == true)
            #expect(fixture.server.stats.jwksRequests == 1)

            fixture.clock.advance(by: IDTokenVerifier.minimumRefetchInterval + .seconds(1))
            let late = await fixture.server.mintIDToken(fixture.claims(), signer: .unknownKey)
            let unknown = await idTokenError { _ = try await fixture.verifier.verify(late, nonce: nil) }
            #expect(unknown == .unknownKey)
            #expect(unknown?.isTransient == false, "fetched again and still lacking it: the issuer does not publish it")
            #expect(fixture.server.stats.jwksRequests == 2)

            // Bounded: the same token again right away asks nothing.
            #expect(await idTokenError { _ = try await fixture.verifier.verify(late, nonce: nil) } == .keyNotYetFetched)
            #expect(fixture.server.stats.jwksRequests == 2)
        }
    }

    @Test("a rotated signing key is found by fetching the key set again")
    func keyRotation() async throws {
        try await withOpenID { fixture in
            _ = try await fixture.verifier.verify(await fixture.server.mintIDToken(fixture.claims()), nonce: nil)
            await fixture.server.rotateSigningKey()
            fixture.clock.advance(by: IDTokenVerifier.minimumRefetchInterval + .seconds(1))
            let token = await fixture.server.mintIDToken(fixture.claims())
            let claims = try await fixture.verifier.verify(token, nonce: nil)
            #expect(claims.subject == OAuthTestServer.subjectIdentifier(ofUser: "alice"))
            #expect(fixture.server.stats.jwksRequests == 2)
        }
    }

    @Test("a token that is not a JWS is malformed")
    func malformed() async throws {
        try await withOpenID { fixture in
            for token in ["", "abc", "a.b", "a.b.c.d", "eyJhbGciOiJSUzI1NiJ9.e30.c2ln"] {
                let error = await idTokenError { _ = try await fixture.verifier.verify(token, nonce: nil) }
                #expect(error == .malformedIDToken || error == .badSignature, "\(token)")
            }
        }
    }

    // MARK: - Claims

    @Test("iss must be exactly the issuer")
    func wrongIssuer() async throws {
        try await withOpenID { fixture in
            var claims = fixture.claims()
            claims.iss += "/"
            let token = await fixture.server.mintIDToken(claims)
            #expect(await idTokenError { _ = try await fixture.verifier.verify(token, nonce: nil) } == .wrongIssuer)
        }
    }

    @Test("aud must contain the client id")
    func wrongAudience() async throws {
        try await withOpenID { fixture in
            var claims = fixture.claims()
            claims.aud = ["another-client"]
            claims.azp = nil
            let token = await fixture.server.mintIDToken(claims)
            #expect(await idTokenError { _ = try await fixture.verifier.verify(token, nonce: nil) } == .wrongAudience)
        }
    }

    @Test("several audiences need an azp naming the client; an azp naming another client is refused")
    func authorizedParty() async throws {
        try await withOpenID { fixture in
            var claims = fixture.claims()
            claims.aud = [OpenIDFixture.clientID, "another-client"]
            claims.azp = nil
            let withoutAZP = await fixture.server.mintIDToken(claims)
            #expect(await idTokenError { _ = try await fixture.verifier.verify(withoutAZP, nonce: nil) } == .wrongAudience)

            claims.azp = OpenIDFixture.clientID
            _ = try await fixture.verifier.verify(await fixture.server.mintIDToken(claims), nonce: nil)

            claims.azp = "another-client"
            let foreignAZP = await fixture.server.mintIDToken(claims)
            #expect(await idTokenError { _ = try await fixture.verifier.verify(foreignAZP, nonce: nil) } == .wrongAuthorizedParty)

            claims.aud = [OpenIDFixture.clientID]
            let singleForeignAZP = await fixture.server.mintIDToken(claims)
            #expect(await idTokenError { _ = try await fixture.verifier.verify(singleForeignAZP, nonce: nil) } == .wrongAuthorizedParty)
        }
    }

    @Test("exp in the past beyond the allowed skew is refused; within it, accepted")
    func expiry() async throws {
        try await withOpenID { fixture in
            var claims = fixture.claims()
            claims.iat = fixture.clock.now.addingTimeInterval(-3600)
            claims.exp = fixture.clock.now.addingTimeInterval(-100)  // inside the 120 s skew
            _ = try await fixture.verifier.verify(await fixture.server.mintIDToken(claims), nonce: nil)
            claims.exp = fixture.clock.now.addingTimeInterval(-121)
            let expired = await fixture.server.mintIDToken(claims)
            #expect(await idTokenError { _ = try await fixture.verifier.verify(expired, nonce: nil) } == .idTokenExpired)
        }
    }

    @Test("iat in the future beyond the allowed skew is refused; within it, accepted")
    func issuedInFuture() async throws {
        try await withOpenID { fixture in
            var claims = fixture.claims()
            claims.iat = fixture.clock.now.addingTimeInterval(100)
            claims.exp = fixture.clock.now.addingTimeInterval(900)
            _ = try await fixture.verifier.verify(await fixture.server.mintIDToken(claims), nonce: nil)
            claims.iat = fixture.clock.now.addingTimeInterval(121)
            let future = await fixture.server.mintIDToken(claims)
            #expect(await idTokenError { _ = try await fixture.verifier.verify(future, nonce: nil) } == .issuedInFuture)
        }
    }

    @Test("the nonce must be the one sent; a nonce when none was sent is fine")
    func nonce() async throws {
        try await withOpenID { fixture in
            let token = await fixture.server.mintIDToken(fixture.claims(nonce: "n-1"))
            #expect(await idTokenError { _ = try await fixture.verifier.verify(token, nonce: "n-2") } == .nonceMismatch)
            _ = try await fixture.verifier.verify(token, nonce: nil)
            let without = await fixture.server.mintIDToken(fixture.claims(nonce: nil))
            #expect(await idTokenError { _ = try await fixture.verifier.verify(without, nonce: "n-1") } == .nonceMismatch)
        }
    }

    @Test("no error description contains the token or the nonce")
    func descriptionsAreSecretFree() async throws {
        try await withOpenID { fixture in
            var claims = fixture.claims(nonce: "secret-nonce-value")
            claims.aud = ["another-client"]
            for (token, nonce) in [
                (await fixture.server.mintIDToken(claims), "secret-nonce-value"),
                (await fixture.server.mintIDToken(fixture.claims(nonce: "secret-nonce-value")), "other-secret-nonce"),
                (await fixture.server.mintIDToken(fixture.claims(), signer: .foreignKey), "x"),
            ] {
                let error = try #require(await idTokenError { _ = try await fixture.verifier.verify(token, nonce: nonce) })
                let text = "\(error)"
                #expect(!text.contains(token))
                #expect(!text.contains("secret-nonce-value") && !text.contains("other-secret-nonce"))
                #expect(!error.fix.isEmpty)
            }
        }
    }

    // MARK: - The key set

    @Test("a key set that cannot be fetched just now is transient; one that is not there is misconfigured")
    func keySetFailures() async throws {
        try await withOpenID { fixture in
            fixture.server.updateFaults { $0.jwksUnavailable = 1 }
            let token = await fixture.server.mintIDToken(fixture.claims())
            let unavailable = await idTokenError { _ = try await fixture.verifier.verify(token, nonce: nil) }
            #expect(unavailable == .jwksUnavailable)
            #expect(unavailable?.isTransient == true)
            #expect(unavailable?.statusCode == 503)
            // Nothing was cached: the next call fetches again and succeeds.
            _ = try await fixture.verifier.verify(token, nonce: nil)

            let missing = fixture.verifier(jwksURI: fixture.server.url("/no-such-keys"))
            let misconfigured = await idTokenError { _ = try await missing.verify(token, nonce: nil) }
            #expect(misconfigured == .jwksMisconfigured)
            #expect(misconfigured?.isTransient == false)

            let notJSON = fixture.verifier(jwksURI: fixture.server.publicURL)
            #expect(await idTokenError { _ = try await notJSON.verify(token, nonce: nil) } == .jwksMisconfigured)

            let redirecting = fixture.verifier(jwksURI: fixture.server.redirectURL(to: fixture.server.jwksURI))
            #expect(await idTokenError { _ = try await redirecting.verify(token, nonce: nil) } == .jwksMisconfigured)

            let insecure = fixture.verifier(jwksURI: URL(string: "http://keys.example.com/jwks")!)
            #expect(await idTokenError { _ = try await insecure.verify(token, nonce: nil) } == .jwksMisconfigured)
        }
    }

    @Test("discovery records jwks_uri and userinfo_endpoint, and the verifier is built from them")
    func fromMetadata() async throws {
        try await withOpenID { fixture in
            let discovery = Discovery(transport: OpenIDFixture.transport, timeLimit: .seconds(600))
            let metadata = try await discovery.metadata(forIssuer: fixture.server.issuer)
            #expect(metadata.jwksURI == fixture.server.jwksURI)
            #expect(metadata.userinfoEndpoint == fixture.server.userinfoEndpoint)
            let client = metadata.client(id: OpenIDFixture.clientID)
            #expect(client.issuer == fixture.server.issuer)
            #expect(client.jwksURI == fixture.server.jwksURI)
            #expect(client.userinfoEndpoint == fixture.server.userinfoEndpoint)

            let verifier = try IDTokenVerifier(
                metadata: metadata, clientID: OpenIDFixture.clientID, transport: OpenIDFixture.transport,
                wallClock: fixture.clock.wallClock)
            _ = try await verifier.verify(await fixture.server.mintIDToken(fixture.claims()), nonce: nil)
            #expect(IDTokenVerifier(client: client) != nil)

            var withoutKeys = metadata
            withoutKeys.jwksURI = nil
            await expectSignInError(.jwksMisconfigured) {
                try IDTokenVerifier(metadata: withoutKeys, clientID: OpenIDFixture.clientID)
            }
            #expect(IDTokenVerifier(client: OAuthClient(tokenEndpoint: fixture.server.tokenEndpoint, clientID: "x")) == nil)
        }
    }
}
