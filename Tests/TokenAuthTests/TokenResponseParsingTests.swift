import Foundation
import Testing
@testable import TokenAuth
import TokenAuthTesting

@Suite("Parsing token responses (RFC 6749 §5.1, §5.2)")
struct TokenResponseParsingTests {
    let sentAt = ManualWallClock.epoch

    func parse(_ json: String) throws(TokenAuthError) -> TokenResponse {
        try TokenResponse.parse(data: Data(json.utf8), sentAt: sentAt)
    }

    func error(_ json: String) -> TokenAuthError? {
        do {
            _ = try parse(json)
            Issue.record("parsing succeeded")
            return nil
        } catch {
            return error
        }
    }

    @Test("a complete response gives every field, with expiry counted from the send time")
    func completeResponse() throws {
        let response = try parse(
            #"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt","scope":"read write"}"#
        )
        #expect(response == TokenResponse(
            accessToken: "at",
            tokenType: "Bearer",
            refreshToken: "rt",
            expiresAt: sentAt.addingTimeInterval(3600),
            scope: "read write",
            issuedAt: sentAt
        ))
    }

    @Test("refresh_token_expires_in (GitHub's) dates the refresh token; a kept refresh token keeps its date")
    func refreshTokenExpiry() throws {
        let response = try parse(
            #"{"access_token":"ghu_a","expires_in":28800,"refresh_token":"ghr_b","refresh_token_expires_in":15811200,"token_type":"bearer"}"#)
        #expect(response.refreshTokenExpiresAt == sentAt.addingTimeInterval(15_811_200))
        let auth = response.auth(updating: nil)
        #expect(auth.refreshTokenExpiresAt == sentAt.addingTimeInterval(15_811_200))
        // An answer without a new refresh token keeps the old one, and its date.
        let kept = try parse(#"{"access_token":"ghu_c","expires_in":28800}"#).auth(updating: auth)
        #expect(kept.refreshToken == "ghr_b")
        #expect(kept.refreshTokenExpiresAt == auth.refreshTokenExpiresAt)
        // A new refresh token without a date has none.
        let rotated = try parse(#"{"access_token":"ghu_d","refresh_token":"ghr_e"}"#).auth(updating: auth)
        #expect(rotated.refreshTokenExpiresAt == nil)
        // A date without a refresh token means nothing.
        #expect(try parse(#"{"access_token":"x","refresh_token_expires_in":60}"#).refreshTokenExpiresAt == nil)
    }

    @Test("expires_in as a numeric string is understood")
    func numericStringExpiresIn() throws {
        #expect(try parse(#"{"access_token":"at","token_type":"Bearer","expires_in":"120"}"#).expiresAt == sentAt.addingTimeInterval(120))
        #expect(try parse(#"{"access_token":"at","token_type":"Bearer","expires_in":" 60 "}"#).expiresAt == sentAt.addingTimeInterval(60))
        #expect(try parse(#"{"access_token":"at","expires_in":"3599"}"#).expiresAt == sentAt.addingTimeInterval(3599))
    }

    @Test("a fractional expires_in keeps its fraction")
    func fractionalExpiresIn() throws {
        #expect(try parse(#"{"access_token":"at","expires_in":1.5}"#).expiresAt == sentAt.addingTimeInterval(1.5))
        #expect(try parse(#"{"access_token":"at","expires_in":0.25}"#).expiresAt == sentAt.addingTimeInterval(0.25))
    }

    @Test("absent expires_in means no known expiry")
    func absentExpiresIn() throws {
        #expect(try parse(#"{"access_token":"at","token_type":"Bearer"}"#).expiresAt == nil)
    }

    @Test("a zero or negative expires_in means expired when the request was sent, and the tokens are kept", arguments: [
        "0", "-5", "-0.5", #""-5""#, #""0""#, "-1e308",
    ])
    func expiredOnArrival(value: String) throws {
        let response = try parse(#"{"access_token":"at","refresh_token":"rt","expires_in":\#(value)}"#)
        #expect(response.expiresAt == sentAt)
        #expect(response.refreshToken == "rt")
        #expect(response.auth(updating: nil).isValid(at: sentAt) == false)
    }

    @Test("a huge expires_in is clamped to ten years from the send time", arguments: [
        "1e17", #""1e17""#, "1e308", "315360001", "9223372036854775807",
    ])
    func hugeExpiresIn(value: String) throws {
        let response = try parse(#"{"access_token":"at","expires_in":\#(value)}"#)
        #expect(TokenResponse.maximumLifetime == .seconds(315_360_000))
        #expect(response.expiresAt == sentAt.addingTimeInterval(315_360_000))
    }

    @Test("an unreadable or non-finite expires_in means no known expiry rather than losing the tokens", arguments: [
        #""soon""#, "null", "true", #"{"seconds":5}"#, #""1e400""#, #""inf""#, #""nan""#, #""-inf""#,
    ])
    func unreadableExpiresIn(value: String) throws {
        let response = try parse(#"{"access_token":"at","refresh_token":"rt","expires_in":\#(value)}"#)
        #expect(response.expiresAt == nil)
        #expect(response.refreshToken == "rt")
    }

    @Test("token_type is case-insensitive and bearer is normalised to Bearer", arguments: ["bearer", "BEARER", "bEaReR"])
    func tokenTypeNormalised(type: String) throws {
        #expect(try parse(#"{"access_token":"at","token_type":"\#(type)"}"#).tokenType == "Bearer")
    }

    @Test("other token types are kept as sent, and a missing one means Bearer")
    func otherTokenTypes() throws {
        #expect(try parse(#"{"access_token":"at","token_type":"DPoP"}"#).tokenType == "DPoP")
        #expect(try parse(#"{"access_token":"at"}"#).tokenType == "Bearer")
    }

    @Test("a missing or empty access_token is a malformed (transient) response")
    func missingAccessToken() {
        for json in [#"{"token_type":"Bearer","refresh_token":"rt"}"#, #"{"access_token":""}"#, #"{"access_token":42}"#] {
            let error = error(json)
            #expect(error?.code == .malformedResponse)
            #expect(error?.isTransient == true)
        }
    }

    @Test("a token or token type with a space, control or non-ASCII character is malformed, and not quoted", arguments: [
        #"{"access_token":"two words"}"#, #"{"access_token":"line\r\nX-Injected: 1"}"#, #"{"access_token":"tab\tbed"}"#,
        #"{"access_token":"caf\u00e9"}"#, #"{"access_token":"at","refresh_token":"nul\u0000led"}"#,
        #"{"access_token":"at","token_type":"Bearer x"}"#, #"{"access_token":"at","token_type":""}"#,
    ])
    func headerBreakingTokens(json: String) {
        let error = error(json)
        #expect(error?.code == .malformedResponse)
        #expect(error?.isTransient == true)
        for fragment in ["words", "X-Injected", "bed", "caf", "led", "Bearer x"] {
            #expect(error?.description.contains(fragment) == false)
        }
    }

    @Test("tokens of visible ASCII, as RFC 6749 allows, are accepted")
    func visibleASCIITokens() throws {
        let response = try parse(#"{"access_token":"a!#$%&'()*+,-./:;<=>?@[]^_`{|}~Z","refresh_token":"r=\"q\"","token_type":"N_A"}"#)
        #expect(response.accessToken == "a!#$%&'()*+,-./:;<=>?@[]^_`{|}~Z")
        #expect(response.refreshToken == #"r="q""#)
    }

    @Test("a body that is not a JSON object is malformed", arguments: ["", "<html>", "[1,2]", #""text""#, "{"])
    func notJSONObject(body: String) {
        #expect(error(body)?.code == .malformedResponse)
    }

    @Test("an error member makes it an error response even without an error status")
    func errorInsideSuccess() {
        let error = error(#"{"error":"invalid_grant","error_description":"Token expired","access_token":"at"}"#)
        #expect(error == .invalidGrant)
        #expect(error?.isTransient == false)
        #expect(error?.oauthErrorCode == "invalid_grant")
        #expect(error?.oauthError?.errorDescription == "Token expired")
    }

    @Test("an error member that is not a string is malformed, not a success")
    func nonStringError() {
        #expect(error(#"{"error":{"code":1},"access_token":"at"}"#) == .malformedResponse)
    }

    @Test("a response over 1 MiB is refused without being parsed")
    func sizeCap() {
        let padding = String(repeating: "x", count: TokenResponse.maximumSize)
        let error = error(#"{"access_token":"at","padding":"\#(padding)"}"#)
        #expect(error?.code == .malformedResponse)
    }

    @Test("a response just under 1 MiB is accepted")
    func justUnderSizeCap() throws {
        let prefix = #"{"access_token":"at","padding":""#
        let padding = String(repeating: "x", count: TokenResponse.maximumSize - prefix.utf8.count - 2)
        #expect(try parse(prefix + padding + #""}"#).accessToken == "at")
    }

    @Test("empty refresh_token and scope read as absent")
    func emptyOptionalFields() throws {
        let response = try parse(#"{"access_token":"at","refresh_token":"","scope":""}"#)
        #expect(response.refreshToken == nil)
        #expect(response.scope == nil)
    }

    @Test("a response without a refresh token keeps the previous one (RFC 6749 §6) and the previous scope")
    func authKeepsPreviousRefreshTokenAndScope() throws {
        let previous = Auth(accessToken: "old", refreshToken: "rt-old", expiresAt: sentAt, scope: "read")
        let auth = try parse(#"{"access_token":"new","token_type":"bearer","expires_in":60}"#).auth(updating: previous)
        #expect(auth == Auth(accessToken: "new", tokenType: "Bearer", refreshToken: "rt-old", expiresAt: sentAt.addingTimeInterval(60), scope: "read",
            issuedAt: sentAt))
    }

    @Test("a response with a new refresh token and scope replaces both")
    func authTakesNewRefreshTokenAndScope() throws {
        let previous = Auth(accessToken: "old", refreshToken: "rt-old", scope: "read write")
        let auth = try parse(#"{"access_token":"new","refresh_token":"rt-new","scope":"read"}"#).auth(updating: previous)
        #expect(auth.refreshToken == "rt-new")
        #expect(auth.scope == "read")
        #expect(auth.expiresAt == nil)
    }

    @Test("the description of a token response shows no token")
    func descriptionIsRedacted() throws {
        let response = try parse(#"{"access_token":"AT-SECRET","refresh_token":"RT-SECRET","expires_in":5}"#)
        for text in [response.description, String(reflecting: response), "\(response)"] {
            #expect(!text.contains("AT-SECRET"))
            #expect(!text.contains("RT-SECRET"))
        }
    }
}
