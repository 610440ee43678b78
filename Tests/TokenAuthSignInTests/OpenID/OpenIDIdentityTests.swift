import Foundation
import HTTPTypes
import OAuthTestServer
import Testing
@testable import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn
import TokenAuthURLSession

@Suite("OpenID Connect identity: who signed in, from the id_token and UserInfo, and across refreshes")
struct OpenIDIdentityTests {
    @Test("a token response with the openid scope carries an id_token, which its description never shows")
    func responseCarriesIDToken() async throws {
        try await withOpenID { fixture in
            let response = try await fixture.passwordGrant()
            let idToken = try #require(response.idToken)
            #expect(!"\(response)".contains(idToken))
            #expect(fixture.server.stats.idTokensIssued == 1)

            let plain = try await fixture.passwordGrant(scope: "read")
            #expect(plain.idToken == nil)
        }
    }

    @Test("the identity of a sign-in: issuer, sub and the display name from the id_token; UserInfo is not asked")
    func identityFromIDToken() async throws {
        try await withOpenID { fixture in
            let response = try await fixture.passwordGrant()
            let identity = try await fixture.verifier.identity(
                from: response, nonce: nil, userinfoEndpoint: fixture.server.userinfoEndpoint)
            #expect(identity == Identity(
                issuer: fixture.server.issuer, subject: OAuthTestServer.subjectIdentifier(ofUser: "alice"),
                displayName: "alice"))
            #expect("\(identity)" == "alice")
            #expect(fixture.server.stats.userinfoRequests == 0)
        }
    }

    @Test("without a name in the id_token, the display name comes from UserInfo, asked once with the access token")
    func identityFromUserinfo() async throws {
        try await withOpenID { fixture in
            fixture.server.openID.profileInIDToken = false
            let response = try await fixture.passwordGrant()
            let identity = try await fixture.verifier.identity(
                from: response, nonce: nil, userinfoEndpoint: fixture.server.userinfoEndpoint)
            #expect(identity.displayName == "alice")
            #expect(fixture.server.stats.userinfoRequests == 1)
        }
    }

    @Test("without a name anywhere, or without a usable UserInfo, the identity has no display name and shows the sub")
    func identityWithoutName() async throws {
        try await withOpenID { fixture in
            fixture.server.openID.profileInIDToken = false
            fixture.server.openID.profileInUserinfo = false
            let response = try await fixture.passwordGrant()
            let bare = try await fixture.verifier.identity(
                from: response, nonce: nil, userinfoEndpoint: fixture.server.userinfoEndpoint)
            #expect(bare.displayName == nil)
            #expect("\(bare)" == OAuthTestServer.subjectIdentifier(ofUser: "alice"))

            // A UserInfo that is not there: the sign-in still succeeds, without a name.
            let missing = try await fixture.verifier.identity(
                from: response, nonce: nil, userinfoEndpoint: fixture.server.url("/no-userinfo"))
            #expect(missing.displayName == nil)
            // The strict lookup says why.
            let error = await idTokenError {
                _ = try await fixture.verifier.displayName(
                    fromUserinfo: fixture.server.url("/no-userinfo"), accessToken: response.accessToken,
                    subject: bare.subject)
            }
            #expect(error == .userinfoInvalid)
        }
    }

    @Test("a UserInfo answer about another sub fails the sign-in")
    func userinfoSubjectMismatch() async throws {
        try await withOpenID { fixture in
            fixture.server.openID.profileInIDToken = false
            fixture.server.updateFaults { $0.userinfoSubjectMismatches = 1 }
            let response = try await fixture.passwordGrant()
            let error = await idTokenError {
                _ = try await fixture.verifier.identity(
                    from: response, nonce: nil, userinfoEndpoint: fixture.server.userinfoEndpoint)
            }
            #expect(error == .userinfoSubjectMismatch)
            #expect(fixture.server.stats.userinfoRequests == 1)
        }
    }

    @Test("the device grant's token response carries an id_token too, for the user who approved")
    func deviceGrantIDToken() async throws {
        try await withOpenID { fixture in
            let server = fixture.server
            let form = Data("client_id=\(OpenIDFixture.clientID)&scope=openid".utf8)
            let request = HTTPRequest(
                method: .post, url: server.deviceAuthorizationEndpoint,
                headerFields: [.contentType: "application/x-www-form-urlencoded"])
            let (_, body) = try await OpenIDFixture.transport.send(request, body: form)
            let answer = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            let deviceCode = try #require(answer["device_code"] as? String)
            let userCode = try #require(answer["user_code"] as? String)
            #expect(server.decide(userCode: userCode, .approve(subject: "alice")))

            let client = OAuthClient(tokenEndpoint: server.tokenEndpoint, clientID: OpenIDFixture.clientID)
            let response = try await TokenEndpointClient(client: client, transport: URLSessionHTTPTransport(), wallClock: fixture.clock.wallClock)
                .deviceCode(deviceCode)
            let identity = try await fixture.verifier.identity(from: response, nonce: nil, userinfoEndpoint: nil)
            #expect(identity.subject == OAuthTestServer.subjectIdentifier(ofUser: "alice"))
            #expect(identity.displayName == "alice")
        }
    }

    @Test("a response without an id_token has no identity")
    func missingIDToken() async throws {
        try await withOpenID { fixture in
            let response = try await fixture.passwordGrant(scope: "read")
            let error = await idTokenError {
                _ = try await fixture.verifier.identity(from: response, nonce: nil, userinfoEndpoint: nil)
            }
            #expect(error == .missingIDToken)
        }
    }

    @Test(
        "the server's id_token faults are each refused",
        arguments: [
            (OAuthTestServer.IDTokenFault.badSignature, SignInError.Code.badSignature),
            (.algNone, .unsupportedAlgorithm), (.hmac, .unsupportedAlgorithm), (.wrongAudience, .wrongAudience),
            (.extraAudienceWithoutAuthorizedParty, .wrongAudience), (.wrongAuthorizedParty, .wrongAuthorizedParty),
            (.wrongIssuer, .wrongIssuer), (.expired, .idTokenExpired), (.issuedInFuture, .issuedInFuture),
            (.unknownKey, .unknownKey),
        ])
    func serverFaults(fault: OAuthTestServer.IDTokenFault, expected: SignInError.Code) async throws {
        try await withOpenID { fixture in
            fixture.server.updateFaults { $0.idTokenFaults = [fault] }
            let response = try await fixture.passwordGrant()
            let error = await idTokenError {
                _ = try await fixture.verifier.identity(from: response, nonce: nil, userinfoEndpoint: nil)
            }
            #expect(error == expected)
        }
    }

    @Test("a sign-in with a nonce refuses the server's wrong nonce")
    func serverWrongNonce() async throws {
        try await withOpenID { fixture in
            fixture.server.updateFaults { $0.idTokenFaults = [.wrongNonce] }
            let response = try await fixture.passwordGrant()
            let error = await idTokenError {
                _ = try await fixture.verifier.identity(from: response, nonce: "another", userinfoEndpoint: nil)
            }
            #expect(error == .nonceMismatch)
        }
    }

    // MARK: - Refresh

    @Test("a refreshed id_token for the same account keeps the identity; without an id_token it is kept as it was")
    func refreshKeepsIdentity() async throws {
        try await withOpenID { fixture in
            let signIn = try await fixture.passwordGrant()
            let identity = try await fixture.verifier.identity(from: signIn, nonce: nil, userinfoEndpoint: nil)
            let client = OAuthClient(tokenEndpoint: fixture.server.tokenEndpoint, clientID: OpenIDFixture.clientID)
            let refreshed = try await TokenEndpointClient(client: client, transport: URLSessionHTTPTransport(), wallClock: fixture.clock.wallClock)
                .refresh(refreshToken: try #require(signIn.refreshToken), scope: nil)
            #expect(refreshed.idToken != nil)
            #expect(try await fixture.verifier.identity(afterRefresh: refreshed, keeping: identity) == identity)

            var withoutIDToken = refreshed
            withoutIDToken.idToken = nil
            let renamed = Identity(issuer: identity.issuer, subject: identity.subject, displayName: "kept")
            #expect(try await fixture.verifier.identity(afterRefresh: withoutIDToken, keeping: renamed) == renamed)
        }
    }

    @Test("a refreshed id_token for another sub is refused as subjectChanged")
    func refreshChangesSubject() async throws {
        try await withOpenID { fixture in
            let signIn = try await fixture.passwordGrant()
            let identity = try await fixture.verifier.identity(from: signIn, nonce: nil, userinfoEndpoint: nil)
            fixture.server.updateFaults { $0.idTokenFaults = [.changedSubject] }
            let client = OAuthClient(tokenEndpoint: fixture.server.tokenEndpoint, clientID: OpenIDFixture.clientID)
            let refreshed = try await TokenEndpointClient(client: client, transport: URLSessionHTTPTransport(), wallClock: fixture.clock.wallClock)
                .refresh(refreshToken: try #require(signIn.refreshToken), scope: nil)
            let error = await idTokenError { _ = try await fixture.verifier.identity(afterRefresh: refreshed, keeping: identity) }
            #expect(error == .subjectChanged)

            // An identity of another issuer is never kept by this verifier either.
            let elsewhere = Identity(issuer: URL(string: "https://elsewhere.example")!, subject: identity.subject)
            let other = await idTokenError { _ = try await fixture.verifier.identity(afterRefresh: refreshed, keeping: elsewhere) }
            #expect(other == .subjectChanged)
        }
    }
}
