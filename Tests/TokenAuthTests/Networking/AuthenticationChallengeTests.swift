import Foundation
import HTTPTypes
import Testing
import TokenAuth

@Suite("WWW-Authenticate parsing (RFC 9110 §11.6.1, RFC 6750 §3)")
struct AuthenticationChallengeTests {
    @Test("an RFC 6750 Bearer challenge yields its realm, error, description and scope")
    func bearerChallenge() throws {
        let challenges = AuthenticationChallenge.parse(
            #"Bearer realm="example", error="insufficient_scope", error_description="Needs admin", scope="admin read""#)
        let challenge = try #require(challenges.first)
        #expect(challenges.count == 1)
        #expect(challenge.hasScheme("bearer"))
        #expect(challenge.realm == "example")
        #expect(challenge.error == "insufficient_scope")
        #expect(challenge.errorDescription == "Needs admin")
        #expect(challenge.scope == "admin read")
    }

    @Test("quoted strings keep commas and equals signs, and lose their backslash escapes")
    func quotedStrings() throws {
        let challenge = try #require(
            AuthenticationChallenge.parse(#"Bearer error_description="a, b=c \"quoted\" \\ end", error=invalid_token"#).first)
        #expect(challenge.errorDescription == #"a, b=c "quoted" \ end"#)
        #expect(challenge.error == "invalid_token")
    }

    @Test("several challenges in one field are told apart, including the RFC 9110 example")
    func multipleChallenges() {
        let challenges = AuthenticationChallenge.parse(
            #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#)
        #expect(challenges.map(\.scheme) == ["Newauth", "Basic"])
        #expect(challenges.first?.parameters == ["realm": "apps", "type": "1", "title": #"Login to "apps""#])
        #expect(challenges.last?.realm == "simple")
    }

    @Test("a scheme without parameters, token68 credentials and empty list elements")
    func bareSchemesAndToken68() {
        let challenges = AuthenticationChallenge.parse(#"Bearer, , Negotiate abc+/de==, Basic realm=x"#)
        #expect(challenges.map(\.scheme) == ["Bearer", "Negotiate", "Basic"])
        #expect(challenges[0].parameters.isEmpty)
        #expect(challenges[1].token68 == "abc+/de==")
        #expect(challenges[2].realm == "x")
    }

    @Test("parameter names are case-insensitive, whitespace around '=' is allowed, and the first duplicate wins")
    func parameterNames() throws {
        let challenge = try #require(AuthenticationChallenge.parse(#"BEARER Error = "invalid_token" , ERROR="other""#).first)
        #expect(challenge.hasScheme("Bearer"))
        #expect(challenge.error == "invalid_token")
        #expect(challenge[parameter: "ERROR"] == "invalid_token")
    }

    @Test("malformed input yields what can be read and never traps")
    func malformed() {
        #expect(AuthenticationChallenge.parse("").isEmpty)
        #expect(AuthenticationChallenge.parse(" , ,").isEmpty)
        #expect(AuthenticationChallenge.parse(#"Bearer error="unterminated"#).first?.error == "unterminated")
        #expect(AuthenticationChallenge.parse(#"="x", Bearer realm="r""#).map(\.scheme) == ["Bearer"])
    }

    @Test("challenges are read from every WWW-Authenticate field of a response")
    func severalFields() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .wwwAuthenticate, value: #"Basic realm="a""#))
        fields.append(HTTPField(name: .wwwAuthenticate, value: #"Bearer error="invalid_token""#))
        let response = HTTPResponse(status: .unauthorized, headerFields: fields)
        #expect(AuthenticationChallenge.challenges(in: response).map(\.scheme) == ["Basic", "Bearer"])
        #expect(AuthenticationChallenge.bearerChallenge(in: response)?.error == "invalid_token")
    }

    @Test("the description is WWW-Authenticate syntax that parses back to the same challenge")
    func roundTrip() throws {
        let challenge = AuthenticationChallenge(scheme: "Bearer", parameters: ["Error": "invalid_token", "error_description": #"say "hi""#])
        #expect(AuthenticationChallenge.parse(challenge.description) == [challenge])
    }
}

@Suite("Which responses reject the token")
struct TokenRejectionClassifierTests {
    private func response(_ status: HTTPResponse.Status, challenge: String? = nil) -> HTTPResponse {
        var fields = HTTPFields()
        if let challenge { fields[.wwwAuthenticate] = challenge }
        return HTTPResponse(status: status, headerFields: fields)
    }

    @Test("standard: 401 with Bearer invalid_token, with a Bearer challenge without error, or with no challenge")
    func standardRejections() {
        let standard = TokenRejectionClassifier.standard
        #expect(standard.isTokenRejected(response(.unauthorized, challenge: #"Bearer error="invalid_token""#), body: Data()))
        #expect(standard.isTokenRejected(response(.unauthorized, challenge: #"Bearer realm="api""#), body: Data()))
        #expect(standard.isTokenRejected(response(.unauthorized), body: Data()))
    }

    @Test("standard: never a 403, another Bearer error, a non-Bearer challenge or a success")
    func standardNonRejections() {
        let standard = TokenRejectionClassifier.standard
        #expect(!standard.isTokenRejected(response(.forbidden, challenge: #"Bearer error="insufficient_scope""#), body: Data()))
        #expect(!standard.isTokenRejected(response(.forbidden, challenge: #"Bearer error="invalid_token""#), body: Data()))
        #expect(!standard.isTokenRejected(response(.forbidden), body: Data()))
        #expect(!standard.isTokenRejected(response(.unauthorized, challenge: #"Bearer error="invalid_request""#), body: Data()))
        #expect(!standard.isTokenRejected(response(.unauthorized, challenge: #"Basic realm="x""#), body: Data()))
        #expect(!standard.isTokenRejected(response(.ok), body: Data()))
    }

    @Test("a JSON error body such as {\"errors\":[\"invalid_token\"]} can be recognised by configuration")
    func jsonErrorBody() {
        let classifier = TokenRejectionClassifier.standard.or(.jsonErrorBody(field: "errors", codes: ["invalid_token"]))
        let body = Data(#"{"errors":["rate_limited","invalid_token"]}"#.utf8)
        #expect(classifier.isTokenRejected(response(.badRequest), body: body))
        #expect(!TokenRejectionClassifier.standard.isTokenRejected(response(.badRequest), body: body))
        #expect(!classifier.isTokenRejected(response(.badRequest), body: Data(#"{"errors":["rate_limited"]}"#.utf8)))
        #expect(!classifier.isTokenRejected(response(.forbidden), body: body))
        #expect(!classifier.isTokenRejected(response(.badRequest), body: Data("not json".utf8)))
        let single = TokenRejectionClassifier.jsonErrorBody(field: "error", codes: ["token_expired"])
        #expect(single.isTokenRejected(response(.unauthorized, challenge: #"Basic realm="x""#), body: Data(#"{"error":"token_expired"}"#.utf8)))
    }
}
