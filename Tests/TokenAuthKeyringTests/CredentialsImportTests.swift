import Foundation
import Testing
import TokenAuth
@testable import TokenAuthKeyring

/// What `tokenctl import` accepts on standard input.
@Suite("Importing credentials from text")
struct CredentialsImportTests {
    /// The moment the text was received; `expires_in` counts from here.
    static let received = Date(timeIntervalSince1970: 1_800_000_000)
    /// Credentials with every member of the stored format's first version that a client records.
    static let fullCredentials = StoredCredentials(
        auth: Auth(
            accessToken: "access-7f3a", tokenType: "Bearer", refreshToken: "refresh-91cc", expiresAt: received,
            scope: "read write"),
        client: OAuthClient(
            tokenEndpoint: URL(string: "https://auth.example.org/oauth/token")!, clientID: "desktop-app",
            clientSecret: "client-secret-55d0", authentication: .clientSecretPost,
            revocationEndpoint: URL(string: "https://auth.example.org/oauth/revoke")!))

    @Test("the stored format is imported with its client")
    func storedFormat() throws {
        let text = try StoredBundleFormat.encode(Self.fullCredentials)
        #expect(try CredentialsImport.parse(text + "\n", receivedAt: Self.received) == Self.fullCredentials)
    }

    @Test("an RFC 6749 §5.1 token response is imported, expires_in becoming an absolute expiry from the time it was received")
    func tokenResponse() throws {
        let text = #"""
            {"access_token":"2YotnFZFEjr1zCsicMWpAA","token_type":"bearer","expires_in":3600,
             "refresh_token":"tGzv3JOkF0XG5Qx2TlKWIA","scope":"read"}
            """#
        let credentials = try CredentialsImport.parse(text, receivedAt: Self.received)
        #expect(credentials.auth == Auth(
            accessToken: "2YotnFZFEjr1zCsicMWpAA", tokenType: "Bearer", refreshToken: "tGzv3JOkF0XG5Qx2TlKWIA",
            expiresAt: Self.received.addingTimeInterval(3600), scope: "read", issuedAt: Self.received))
        #expect(credentials.client == nil)
    }

    @Test("GitHub's form-encoded token answer, pasted, is imported: percent-decoded, its comma-separated scope read as scopes")
    func formEncodedTokenResponse() throws {
        let text = "access_token=gho_16C7e42F292c6912E7710c838347Ae178B4a&scope=repo%2Cgist&token_type=bearer\n"
        let credentials = try CredentialsImport.parse(text, receivedAt: Self.received)
        #expect(credentials.auth == Auth(
            accessToken: "gho_16C7e42F292c6912E7710c838347Ae178B4a", tokenType: "Bearer", scope: "repo gist",
            issuedAt: Self.received))
        let expiring = try CredentialsImport.parse(
            "access_token=ghu_a&expires_in=28800&refresh_token=ghr_b&token_type=bearer", receivedAt: Self.received)
        #expect(expiring.auth.expiresAt == Self.received.addingTimeInterval(28800))
        #expect(expiring.auth.refreshToken == "ghr_b")
        #expect(throws: CredentialsImport.Failure.self) {
            try CredentialsImport.parse("error=bad_verification_code&error_description=The+code+is+wrong", receivedAt: Self.received)
        }
    }

    @Test("a token response whose expires_in is a numeric string is imported with the same expiry")
    func numericStringExpiresIn() throws {
        let credentials = try CredentialsImport.parse(
            #"{"access_token":"a","token_type":"Bearer","expires_in":"3600"}"#, receivedAt: Self.received)
        #expect(credentials.auth.expiresAt == Self.received.addingTimeInterval(3600))
    }

    @Test("a token response without expires_in has no expiry")
    func noExpiresIn() throws {
        let credentials = try CredentialsImport.parse(#"{"access_token":"a","token_type":"Bearer"}"#, receivedAt: Self.received)
        #expect(credentials.auth.expiresAt == nil)
        #expect(credentials.auth.refreshToken == nil)
    }

    @Test("a single-line bare token is imported as an access token")
    func bareToken() throws {
        let credentials = try CredentialsImport.parse("bare-token-value\n", receivedAt: Self.received)
        #expect(credentials == StoredCredentials(auth: Auth(accessToken: "bare-token-value")))
    }

    @Test("every RFC 6750 b64token character is accepted in a bare token, '=' only at the end")
    func b64TokenCharacters() throws {
        let token = "AZaz09-._~+/=="
        #expect(try CredentialsImport.parse(token, receivedAt: Self.received).auth.accessToken == token)
    }

    struct Garbage: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        var testDescription: String { name }
    }

    @Test("text that is neither format is refused with a reason that never quotes a token", arguments: [
        Garbage(name: "nothing", text: ""),
        Garbage(name: "several lines", text: "hello\nworld\n"),
        Garbage(name: "invalid JSON", text: #"{"access_token": "leak-me", "#),
        Garbage(name: "a JSON array", text: #"["leak-me"]"#),
        Garbage(name: "JSON without access_token", text: #"{"token_type":"Bearer","expires_in":3600}"#),
        Garbage(name: "an OAuth error response", text: #"{"error":"invalid_grant","error_description":"expired"}"#),
        Garbage(name: "a stored bundle of a future version", text: #"{"version":3,"access_token":"leak-me"}"#),
        Garbage(name: "a stored bundle with a bad expiry", text: #"{"version":1,"access_token":"leak-me","expires_at":"later"}"#),
        Garbage(name: "one line that is not a b64token", text: "not json at all {leak-me\n"),
        Garbage(name: "a bare token with a space", text: "leak-me too"),
        Garbage(name: "a bare token with a control character", text: "leak-me\u{7}"),
        Garbage(name: "a bare token with '=' inside", text: "leak=me"),
        Garbage(name: "a stored bundle whose token has a line break",
                text: #"{"version":1,"access_token":"leak-me\r\nX: y"}"#),
        Garbage(name: "a stored bundle whose refresh token has a space",
                text: #"{"version":1,"access_token":"a","refresh_token":"leak-me too"}"#),
        Garbage(name: "a token response whose token_type has a space",
                text: #"{"access_token":"leak-me","token_type":"Bearer leak-me"}"#),
    ])
    func garbage(_ input: Garbage) {
        let failure = #expect(throws: CredentialsImport.Failure.self) {
            try CredentialsImport.parse(input.text, receivedAt: Self.received)
        }
        #expect(failure?.description.contains("leak-me") == false)
    }

    @Test("an OAuth error response is refused with its error code named")
    func errorResponseIsNamed() {
        let failure = #expect(throws: CredentialsImport.Failure.self) {
            try CredentialsImport.parse(#"{"error":"invalid_grant"}"#, receivedAt: Self.received)
        }
        // checks the sentence's help: the provider's error code.
        #expect(failure?.reason.contains("invalid_grant") == true)
    }
}
