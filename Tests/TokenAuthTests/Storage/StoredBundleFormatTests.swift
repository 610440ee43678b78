import Foundation
import Testing
import TokenAuth

/// The keyring item's text format, without a keyring: what is written, what is read back, what is refused.
@Suite("The stored JSON bundle format")
struct StoredBundleFormatTests {
    /// 2027-01-15T08:00:00Z: whole seconds, so the RFC 3339 text round-trips exactly.
    static let expiry = Date(timeIntervalSince1970: 1_800_000_000)
    static let entry = #"service "example.org", account "ada""#

    static let fullCredentials = StoredCredentials(
        auth: Auth(
            accessToken: "access-7f3a", tokenType: "Bearer", refreshToken: "refresh-91cc",
            expiresAt: expiry, scope: "read write"),
        client: OAuthClient(
            tokenEndpoint: URL(string: "https://auth.example.org/oauth/token")!, clientID: "desktop-app",
            clientSecret: "client-secret-55d0", authentication: .clientSecretPost,
            revocationEndpoint: URL(string: "https://auth.example.org/oauth/revoke")!))

    /// The encoded text as a JSON object.
    private func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    private func decodingError(_ text: String) -> TokenAuthError? {
        #expect(throws: TokenAuthError.self) { try StoredBundleFormat.decode(text, entry: Self.entry) }
    }

    // MARK: Writing and reading back

    @Test("tokens and client round-trip through the stored JSON, with the expiry as RFC 3339 in UTC")
    func roundTrip() throws {
        let text = try StoredBundleFormat.encode(Self.fullCredentials)
        #expect(try StoredBundleFormat.decode(text, entry: Self.entry) == Self.fullCredentials)

        let json = try object(text)
        #expect(json["version"] as? Int == 1)
        #expect(json["expires_at"] as? String == "2027-01-15T08:00:00Z")
        #expect(json["access_token"] as? String == "access-7f3a")
        #expect(json["token_type"] as? String == "Bearer")
        #expect(json["refresh_token"] as? String == "refresh-91cc")
        #expect(json["scope"] as? String == "read write")
        #expect(json["token_endpoint"] as? String == "https://auth.example.org/oauth/token")
        #expect(json["client_id"] as? String == "desktop-app")
        #expect(json["client_secret"] as? String == "client-secret-55d0")
        #expect(json["client_auth"] as? String == "client_secret_post")
        #expect(json["revocation_endpoint"] as? String == "https://auth.example.org/oauth/revoke")
        #expect(Set(json.keys) == [
            "version", "access_token", "token_type", "refresh_token", "expires_at", "scope",
            "token_endpoint", "client_id", "client_secret", "client_auth", "revocation_endpoint",
        ])
    }

    // MARK: OpenID Connect: the issuer, its keys and who signed in (optional members of version 1)

    static let openIDCredentials = StoredCredentials(
        auth: Auth(accessToken: "access-7f3a", refreshToken: "refresh-91cc", expiresAt: expiry, scope: "openid read"),
        client: OAuthClient(
            tokenEndpoint: URL(string: "https://auth.example.org/token")!, clientID: "desktop-app",
            issuer: URL(string: "https://auth.example.org")!, jwksURI: URL(string: "https://auth.example.org/jwks")!,
            userinfoEndpoint: URL(string: "https://auth.example.org/userinfo")!),
        identity: Identity(
            issuer: URL(string: "https://auth.example.org")!, subject: "248289761001", displayName: "ada@example.org"))

    @Test("a bundle bound to a key is written as version 2 with its dpop_key and read back; without a key, version 1")
    func proofKeyVersion() throws {
        let key = ProofKey(kind: .tpm, thumbprint: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I", material: "pub.priv")
        let bound = StoredCredentials(auth: Auth(accessToken: "a", tokenType: "DPoP", refreshToken: "r", proofKey: key))
        let text = try StoredBundleFormat.encode(bound)
        #expect(text.contains(#""version":2"#))
        #expect(text.contains(#""dpop_key":{"jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I","kind":"tpm","material":"pub.priv"}"#))
        #expect(try StoredBundleFormat.decode(text, entry: Self.entry).auth == bound.auth)
        #expect(try StoredBundleFormat.encode(StoredCredentials(auth: Auth(accessToken: "a"))).contains(#""version":1"#))
        let empty = #"{"version":2,"access_token":"a","dpop_key":{"kind":"tpm","jkt":"","material":"x"}}"#
        #expect(throws: TokenAuthError.self) { try StoredBundleFormat.decode(empty, entry: Self.entry) }
    }

    @Test("the issuer, jwks_uri, userinfo_endpoint, sub and display_name round-trip as optional members")
    func openIDRoundTrip() throws {
        let text = try StoredBundleFormat.encode(Self.openIDCredentials)
        let decoded = try StoredBundleFormat.decode(text, entry: Self.entry)
        #expect(decoded == Self.openIDCredentials)
        #expect(decoded.identity?.displayName == "ada@example.org")
        #expect(decoded.client?.jwksURI == URL(string: "https://auth.example.org/jwks"))

        let json = try object(text)
        #expect(json["version"] as? Int == 1)
        #expect(json["issuer"] as? String == "https://auth.example.org")
        #expect(json["jwks_uri"] as? String == "https://auth.example.org/jwks")
        #expect(json["userinfo_endpoint"] as? String == "https://auth.example.org/userinfo")
        #expect(json["sub"] as? String == "248289761001")
        #expect(json["display_name"] as? String == "ada@example.org")
    }

    @Test("an identity without a display name, and a client with an issuer but no identity, round-trip")
    func openIDPartialRoundTrip() throws {
        var noName = Self.openIDCredentials
        noName.identity?.displayName = nil
        #expect(try StoredBundleFormat.decode(StoredBundleFormat.encode(noName), entry: Self.entry) == noName)
        #expect(try object(StoredBundleFormat.encode(noName))["display_name"] == nil)

        var noIdentity = Self.openIDCredentials
        noIdentity.identity = nil
        let text = try StoredBundleFormat.encode(noIdentity)
        #expect(try StoredBundleFormat.decode(text, entry: Self.entry) == noIdentity)
        #expect(try object(text)["sub"] == nil)
    }

    @Test("an item written before these members existed reads as before: no issuer, no identity")
    func olderItemsStillRead() throws {
        let old = """
            {"access_token":"access-7f3a","client_auth":"none","client_id":"desktop-app",\
            "expires_at":"2027-01-15T08:00:00Z","refresh_token":"refresh-91cc","scope":"read",\
            "token_endpoint":"https://auth.example.org/token","token_type":"Bearer","version":1}
            """
        let decoded = try StoredBundleFormat.decode(old, entry: Self.entry)
        #expect(decoded.identity == nil)
        #expect(decoded.client?.issuer == nil && decoded.client?.jwksURI == nil && decoded.client?.userinfoEndpoint == nil)
        #expect(decoded.auth.accessToken == "access-7f3a")
        // Written back, it has none of the new members either.
        let json = try object(StoredBundleFormat.encode(decoded))
        #expect(json["issuer"] == nil && json["sub"] == nil && json["jwks_uri"] == nil)
    }

    @Test("a sub without its issuer, or an issuer that is not a URL, is corrupt", arguments: [
        #"{"version":1,"access_token":"x","sub":"248289761001"}"#,
        #"{"version":1,"access_token":"x","sub":"","issuer":"https://auth.example.org"}"#,
        #"{"version":1,"access_token":"x","sub":"s","issuer":"not a url"}"#,
        #"{"version":1,"access_token":"x","token_endpoint":"https://a.example/t","client_id":"c","jwks_uri":"keys"}"#,
    ])
    func openIDCorrupt(text: String) throws {
        let error = decodingError(text)
        #expect(error?.code == .corrupt)
    }

    @Test("a bundle with only an access token writes no member for what it lacks, and reads back equal")
    func sparseRoundTrip() throws {
        let credentials = StoredCredentials(auth: Auth(accessToken: "only-this"))
        let text = try StoredBundleFormat.encode(credentials)
        #expect(Set(try object(text).keys) == ["version", "access_token", "token_type"])
        #expect(try StoredBundleFormat.decode(text, entry: Self.entry) == credentials)
    }

    @Test("an expiry written with a UTC offset or fractional seconds is read as the same instant")
    func expiryWithOffset() throws {
        let offset = try StoredBundleFormat.decode(
            #"{"version":1,"access_token":"x","expires_at":"2027-01-15T10:00:00+02:00"}"#, entry: Self.entry)
        #expect(offset.auth.expiresAt == Self.expiry)
        let fractional = try StoredBundleFormat.decode(
            #"{"version":1,"access_token":"x","expires_at":"2027-01-15T08:00:00.250Z"}"#, entry: Self.entry)
        #expect(fractional.auth.expiresAt == Self.expiry.addingTimeInterval(0.25))
    }

    // MARK: Reading what others wrote

    @Test(#"the minimal {"version":1,"access_token":"x"} is a Bearer token with nothing else"#)
    func minimal() throws {
        let credentials = try StoredBundleFormat.decode(#"{"version":1,"access_token":"x"}"#, entry: Self.entry)
        #expect(credentials == StoredCredentials(auth: Auth(accessToken: "x")))
        #expect(credentials.auth.tokenType == "Bearer")
    }

    @Test("a single line of plain text, as `echo TOKEN | secret-tool store` leaves it, is an access token with no expiry or refresh token")
    func plainToken() throws {
        let credentials = try StoredBundleFormat.decode("  gho_plainToken123\n", entry: Self.entry)
        #expect(credentials.auth.accessToken == "gho_plainToken123")
        #expect(credentials.auth.expiresAt == nil)
        #expect(credentials.auth.refreshToken == nil)
        #expect(credentials.auth.tokenType == "Bearer")
        #expect(credentials.client == nil)
    }

    @Test("a lowercase token type is normalised to Bearer")
    func tokenTypeIsNormalised() throws {
        let credentials = try StoredBundleFormat.decode(
            #"{"version":1,"access_token":"x","token_type":"bearer"}"#, entry: Self.entry)
        #expect(credentials.auth.tokenType == "Bearer")
    }

    // MARK: Refusing what it cannot read

    struct Unreadable: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        var testDescription: String { name }
    }

    @Test("text that is not a bundle is corrupt, and the error names the entry", arguments: [
        Unreadable(name: "several lines of text", text: "first line\nsecond line"),
        Unreadable(name: "invalid JSON", text: #"{"version":1,"access_token":"#),
        Unreadable(name: "a JSON array", text: #"["not","a","bundle"]"#),
        Unreadable(name: "no access_token", text: #"{"version":1,"token_type":"Bearer"}"#),
        Unreadable(name: "an empty access_token", text: #"{"version":1,"access_token":""}"#),
        Unreadable(name: "no version", text: #"{"access_token":"x"}"#),
        Unreadable(name: "version 0", text: #"{"version":0,"access_token":"x"}"#),
        Unreadable(name: "a version that is not a number", text: #"{"version":"1","access_token":"x"}"#),
        Unreadable(name: "an expires_at that is not a date", text: #"{"version":1,"access_token":"x","expires_at":"tomorrow"}"#),
        Unreadable(name: "an expires_at that is a number", text: #"{"version":1,"access_token":"x","expires_at":1800000000}"#),
        Unreadable(name: "an expires_at on a day that does not exist (not 2 March)",
                   text: #"{"version":1,"access_token":"x","expires_at":"2030-02-30T00:00:00Z"}"#),
        Unreadable(name: "a refreshed_at with a five-digit year",
                   text: #"{"version":1,"access_token":"x","refreshed_at":"20300-01-01T00:00:00Z"}"#),
        Unreadable(name: "an issued_at at 25 o'clock", text: #"{"version":1,"access_token":"x","issued_at":"2030-01-01T25:00:00+01:00"}"#),
        Unreadable(name: "a client id without a token endpoint", text: #"{"version":1,"access_token":"x","client_id":"app"}"#),
        Unreadable(name: "a relative token endpoint", text: #"{"version":1,"access_token":"x","token_endpoint":"/token","client_id":"app"}"#),
        Unreadable(name: "an unknown client_auth", text: #"{"version":1,"access_token":"x","token_endpoint":"https://a.example/t","client_id":"app","client_auth":"magic"}"#),
        Unreadable(name: "empty text", text: "  \n"),
    ])
    func corrupt(_ input: Unreadable) {
        let error = decodingError(input.text)
        #expect(error?.code == .corrupt)
        // checks the sentence's help: the entry that cannot be read.
        #expect(error?.description.contains(Self.entry) == true)
    }

    @Test("a bundle of a future version is unsupportedVersion, not corrupt, whatever its members look like", arguments: [
        #"{"version":3,"access_token":"x","something_new":{"a":1}}"#,
        #"{"version":3,"access_token":{"value":"x"},"expires_at":1800000000}"#,
        #"{"version":3}"#,
    ])
    func futureVersion(text: String) {
        let error = decodingError(text)
        #expect(error?.code == .unsupportedVersion)
    }

    @Test("a bundle with white space or a newline around it, as a hand edit or `echo` leaves it, reads the same")
    func paddedBundle() throws {
        let text = try StoredBundleFormat.encode(Self.fullCredentials)
        for padded in ["\n" + text, text + "\n", "  " + text + " \r\n", "\u{00A0}" + text + "\u{2029}"] {
            #expect(try StoredBundleFormat.decode(padded, entry: Self.entry) == Self.fullCredentials)
        }
    }

    @Test("the error for an unreadable bundle never quotes its tokens")
    func errorsDoNotLeakTokens() {
        let inputs = [
            #"{"version":1,"access_token":"leak-me-access","refresh_token":"leak-me-refresh","expires_at":"soon"}"#,
            #"{"version":1,"access_token":"leak-me-access","refresh_token":["leak-me-refresh"]}"#,
            #"{"version":1,"access_token":"leak-me-access","client_secret":"leak-me-secret","client_id":"app"}"#,
            "leak-me-access\nleak-me-refresh",
        ]
        for input in inputs {
            let error = decodingError(input)
            #expect(error != nil)
            for token in ["leak-me-access", "leak-me-refresh", "leak-me-secret"] {
                #expect(error?.description.contains(token) == false, "\(token) in: \(error?.description ?? "")")
                #expect(error?.reason.contains(token) == false)
            }
        }
    }

    // MARK: Descriptions

    @Test("Auth, OAuthClient and StoredCredentials descriptions never contain a token or the client secret")
    func descriptionsRedact() {
        let credentials = Self.fullCredentials
        let texts = [
            credentials.auth.description, credentials.auth.debugDescription, "\(credentials.auth)",
            String(reflecting: credentials.auth),
            credentials.client!.description, "\(credentials.client!)", String(reflecting: credentials.client!),
            "\(credentials)", String(reflecting: credentials),
        ]
        for text in texts {
            for secret in ["access-7f3a", "refresh-91cc", "client-secret-55d0"] {
                #expect(!text.contains(secret), "\(secret) in: \(text)")
            }
        }
        // Still useful: the description says what is there.
        #expect(credentials.auth.description.contains("read write"))
        #expect(credentials.auth.description.contains("refreshToken: <redacted>"))
        #expect(credentials.client!.description.contains("desktop-app"))
    }

    @Test("a 2 s token issued mid-second keeps its lifetime through the store: fresh until half of it is gone, not before")
    func shortLifetimeKeepsItsFraction() throws {
        let issued = Date(timeIntervalSince1970: 1_893_553_445.9)
        let auth = Auth(accessToken: "a", refreshToken: "r", expiresAt: issued.addingTimeInterval(2), issuedAt: issued)
        let read = try StoredBundleFormat.decode(try StoredBundleFormat.encode(StoredCredentials(auth: auth)), entry: "e")
        // Cut to whole seconds, the token looked issued at :45 and expiring at :47, and was refreshed at :46 — 0.1 s
        // into its life, which the server counts as early.
        #expect(read.auth.isFresh(at: issued.addingTimeInterval(0.1), leeway: .seconds(60)))
        #expect(read.auth.isFresh(at: issued.addingTimeInterval(0.95), leeway: .seconds(60)))
        #expect(!read.auth.isFresh(at: issued.addingTimeInterval(1.05), leeway: .seconds(60)))
    }
}
