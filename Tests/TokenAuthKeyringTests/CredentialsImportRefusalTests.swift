import Foundation
import Testing
import TokenAuth
@testable import TokenAuthKeyring

/// What `tokenctl import` refuses because it is not what it claims to be, where it would once have stored
/// something else: a rolled-over date, no expiry, the token "null", an endpoint refused only at the first refresh.
@Suite("Importing credentials: input that is not what it claims is refused")
struct CredentialsImportRefusalTests {
    struct Refused: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        /// Words the reason must contain, naming what is wrong.
        let reason: String
        var testDescription: String { name }
    }

    static let refused = [
        Refused(name: "JSON null", text: "null\n", reason: "JSON null"),
        Refused(name: "JSON true", text: "true", reason: "JSON true"),
        Refused(name: "a JSON array of one object", text: #"[{"access_token":"leak-me"}]"#, reason: "not an object"),
        Refused(name: "a JSON string", text: #""leak-me""#, reason: "neither JSON nor a bare access token"),
        // `echo "$TOKEN" | tokenctl import` with TOKEN unset: not "neither JSON nor a token", which sends one
        // looking for what is wrong with the text.
        Refused(name: "nothing", text: "", reason: "it is empty"),
        Refused(name: "only white space", text: " \n\n", reason: "it is empty"),
        Refused(name: "a token response with a trailing comma", text: #"{"access_token":"leak-me","expires_in":3600,}"#,
                reason: "comma before a closing"),
        Refused(name: "a stored bundle with a trailing comma",
                text: #"{"version":1,"access_token":"leak-me","scope":"a",}"#, reason: "comma before a closing"),
        Refused(name: "a trailing comma in a nested array",
                text: #"{"access_token":"leak-me","extra":[1,2, ]}"#, reason: "comma before a closing"),
        Refused(name: "an expires_in that is a word", text: #"{"access_token":"leak-me","expires_in":"soon"}"#,
                reason: "\"expires_in\" is not a number of seconds"),
        Refused(name: "an expires_in that is a boolean", text: #"{"access_token":"leak-me","expires_in":true}"#,
                reason: "\"expires_in\" is not a number of seconds"),
        Refused(name: "an expires_in that is an object", text: #"{"access_token":"leak-me","expires_in":{"s":1}}"#,
                reason: "\"expires_in\" is not a number of seconds"),
        Refused(name: "an expires_in that is infinite", text: #"{"access_token":"leak-me","expires_in":"inf"}"#,
                reason: "\"expires_in\" is not a number of seconds"),
        Refused(name: "a form-encoded expires_in that is a word", text: "access_token=leak-me&expires_in=soon",
                reason: "\"expires_in\" is not a number of seconds"),
        Refused(name: "a refresh_token_expires_in that is a word",
                text: #"{"access_token":"leak-me","refresh_token":"r","refresh_token_expires_in":"later"}"#,
                reason: "\"refresh_token_expires_in\" is not a number of seconds"),
        Refused(name: "an expires_at on 30 February",
                text: #"{"version":1,"access_token":"leak-me","expires_at":"2030-02-30T00:00:00Z"}"#,
                reason: "\"expires_at\" is not an RFC 3339 date"),
        Refused(name: "an expires_at with a five-digit year",
                text: #"{"version":1,"access_token":"leak-me","expires_at":"20300-01-01T00:00:00Z"}"#,
                reason: "\"expires_at\" is not an RFC 3339 date"),
        Refused(name: "an ftp token endpoint",
                text: #"{"version":1,"access_token":"leak-me","token_endpoint":"ftp://auth.example/token","client_id":"app"}"#,
                reason: "\"token_endpoint\" is neither https nor http on a loopback host"),
        Refused(name: "a plain http token endpoint off loopback",
                text: #"{"version":1,"access_token":"leak-me","token_endpoint":"http://auth.example/token","client_id":"app"}"#,
                reason: "\"token_endpoint\" is neither https nor http on a loopback host"),
        Refused(name: "a plain http revocation endpoint",
                text: #"{"version":1,"access_token":"leak-me","token_endpoint":"https://auth.example/token","client_id":"app","revocation_endpoint":"http://auth.example/revoke"}"#,
                reason: "\"revocation_endpoint\" is neither https"),
        Refused(name: "a plain http key set",
                text: #"{"version":1,"access_token":"leak-me","token_endpoint":"https://auth.example/token","client_id":"app","jwks_uri":"http://auth.example/jwks"}"#,
                reason: "\"jwks_uri\" is neither https"),
    ]

    @Test("each is refused with a reason naming what is wrong and never the token", arguments: refused)
    func refusedInput(_ input: Refused) {
        let failure = #expect(throws: CredentialsImport.Failure.self) {
            try CredentialsImport.parse(input.text, receivedAt: CredentialsImportTests.received)
        }
        // checks the sentence's help: what is wrong with the input (no code: the import's one failure).
        #expect(failure?.reason.contains(input.reason) == true, "\(failure?.reason ?? "accepted")")
        #expect(failure?.description.contains("leak-me") == false)
    }

    @Test("what the rules allow is still imported: expires_in null, a numeric string, http on loopback, commas in strings")
    func allowed() throws {
        let received = CredentialsImportTests.received
        let unknownExpiry = try CredentialsImport.parse(#"{"access_token":"a","expires_in":null}"#, receivedAt: received)
        #expect(unknownExpiry.auth.expiresAt == nil)
        let spaced = try CredentialsImport.parse(#"{"access_token":"a","expires_in":" 60 "}"#, receivedAt: received)
        #expect(spaced.auth.expiresAt == received.addingTimeInterval(60))
        let loopback = try CredentialsImport.parse(
            #"{"version":1,"access_token":"a","token_endpoint":"http://127.0.0.1:8080/token","client_id":"app"}"#,
            receivedAt: received)
        #expect(loopback.client?.tokenEndpoint.absoluteString == "http://127.0.0.1:8080/token")
        let commas = try CredentialsImport.parse(#"{"access_token":"a","scope":"x,} \",]"}"#, receivedAt: received)
        #expect(commas.auth.scope == #"x } " ]"#, "commas in a string are no trailing comma (and separate scopes)")
        let offset = try CredentialsImport.parse(
            #"{"version":1,"access_token":"a","expires_at":"2030-01-02T04:04:05+01:00"}"#, receivedAt: received)
        #expect(offset.auth.expiresAt == Date(timeIntervalSince1970: 1_893_553_445))
        #expect(try CredentialsImport.parse("nullable-token", receivedAt: received).auth.accessToken == "nullable-token")
    }

    @Test("a trailing comma is found outside strings only, after any white space, in objects and arrays")
    func trailingComma() {
        #expect(JSONTrailingComma.isPresent(in: #"{"a":1,}"#))
        #expect(JSONTrailingComma.isPresent(in: "{\"a\":[1,\n\t\r ]}"))
        #expect(JSONTrailingComma.isPresent(in: #"{"a":"\\",}"#), "an escaped backslash ends before the quote")
        #expect(!JSONTrailingComma.isPresent(in: #"{"a":",}","b":",]"}"#))
        #expect(!JSONTrailingComma.isPresent(in: #"{"a":"\",}"}"#), "an escaped quote does not end the string")
        #expect(!JSONTrailingComma.isPresent(in: #"{"a":[1,2],"b":{}}"#))
    }
}
