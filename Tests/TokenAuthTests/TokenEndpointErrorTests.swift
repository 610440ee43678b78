import Foundation
import HTTPTypes
import Testing
@testable import TokenAuth
import TokenAuthTesting
import OAuthTestSupport

@Suite("Classifying token-endpoint failures")
struct TokenEndpointErrorTests {
    let endpoint = URL(string: "https://auth.example.com/token")!

    /// A client whose transport answers every request with the given response.
    func client(
        status: HTTPResponse.Status,
        headers: HTTPFields = [:],
        body: String,
        secret: String? = "CLIENT-SECRET",
        clock: ManualWallClock = ManualWallClock()
    ) -> (TokenEndpointClient, CannedTransport) {
        let transport = CannedTransport(status: status, headers: headers, json: body)
        let oauthClient = OAuthClient(tokenEndpoint: endpoint, clientID: "app", clientSecret: secret)
        return (TokenEndpointClient(client: oauthClient, transport: transport, wallClock: clock.wallClock), transport)
    }

    @Test("RFC 6749 error codes that refuse the grant are permanent", arguments: [
        "invalid_grant", "invalid_client", "unauthorized_client", "unsupported_grant_type", "invalid_scope",
        "invalid_request", "some_extension_error",
    ])
    func permanentCodes(code: String) async {
        let (client, _) = client(status: .badRequest, body: #"{"error":"\#(code)"}"#)
        let error = await tokenError { try await client.refresh(refreshToken: "RT") }
        #expect(error?.isTransient == false)
        #expect(error == .rejected(code))
        #expect(error?.oauthErrorCode == code)
        #expect(error?.statusCode == 400)
    }

    @Test("server trouble, rate limiting and unexpected answers are transient", arguments: [
        (500, #"{"error":"server_error"}"#, TokenAuthError.Code.serverError),
        (502, "<html>Bad Gateway</html>", .serverError),
        (503, "", .serverError),
        (400, #"{"error":"temporarily_unavailable"}"#, .serverError),
        (429, "Too many", .rateLimited),
        (429, #"{"error":"invalid_request"}"#, .rateLimited),
        (408, "", .timedOut),
        (404, "<html>Not found</html>", .malformedResponse),
        (401, "", .malformedResponse),
        (200, "not json", .malformedResponse),
    ])
    func transientAnswers(status: Int, body: String, expected: TokenAuthError.Code) async {
        let (client, _) = client(status: HTTPResponse.Status(code: status), body: body)
        let error = await tokenError { try await client.refresh(refreshToken: "RT") }
        #expect(error?.code == expected)
        #expect(error?.isTransient == true)
        #expect(error?.statusCode == status)
    }

    @Test("a 5xx with an OAuth error body keeps the server's code while staying transient")
    func serverErrorKeepsCode() async {
        let (client, _) = client(status: .serviceUnavailable, body: #"{"error":"temporarily_unavailable","error_description":"maintenance"}"#)
        let error = await tokenError { try await client.clientCredentials() }
        #expect(error?.code == .serverError)
        #expect(error?.oauthErrorCode == "temporarily_unavailable")
        #expect(error?.oauthError?.errorDescription == "maintenance")
    }

    @Test("Retry-After in seconds is carried on transient errors")
    func retryAfterSeconds() async {
        let (client, _) = client(status: .tooManyRequests, headers: [.retryAfter: "42"], body: "")
        let error = await tokenError { try await client.clientCredentials() }
        #expect(error?.retryAfter == .seconds(42))
    }

    @Test("a Retry-After date is measured with the injected clock")
    func retryAfterDate() async {
        let clock = ManualWallClock()
        let date = RetryAfterTests.imfFixdate(clock.now.addingTimeInterval(300))
        let (client, _) = client(status: .serviceUnavailable, headers: [.retryAfter: date], body: "", clock: clock)
        let error = await tokenError { try await client.clientCredentials() }
        #expect(error?.retryAfter == .seconds(300))
    }

    @Test("an error inside a 200 is an error, not tokens")
    func errorInsideOK() async {
        let (client, _) = client(status: .ok, body: #"{"error":"invalid_grant","access_token":"at"}"#)
        let error = await tokenError { try await client.refresh(refreshToken: "RT") }
        #expect(error == .invalidGrant)
        #expect(error?.statusCode == 200)
    }

    @Test("a form-encoded answer (GitHub without Accept: application/json) is read: tokens, and errors in a 200")
    func formEncodedAnswers() async throws {
        let (tokens, _) = client(status: .ok, body: "access_token=gho_abc&scope=repo%2Cgist&token_type=bearer")
        let response = try await tokens.refresh(refreshToken: "RT")
        #expect(response.accessToken == "gho_abc")
        #expect(response.scope == "repo gist", "GitHub's commas read as separators")
        #expect(response.tokenType == "Bearer")
        let (refusing, _) = client(
            status: .ok, body: "error=bad_refresh_token&error_description=The+refresh+token+passed+is+incorrect")
        let error = await tokenError { try await refusing.refresh(refreshToken: "RT") }
        #expect(error?.oauthError?.error == "bad_refresh_token")
        #expect(error?.oauthError?.errorDescription == "The refresh token passed is incorrect")
        #expect(error?.statusCode == 200)
    }

    @Test("Microsoft's interaction_required on a refresh: sign-in required, its AADSTS code kept with the answer")
    func microsoftInteractionRequired() async throws {
        let answer = #"{"error":"interaction_required","error_description":"AADSTS50076: Due to a configuration change made by your administrator, or because you moved to a new location, you must use multi-factor authentication to access the resource.","error_codes":[50076],"suberror":"basic_action","timestamp":"2026-11-25 08:00:00Z","trace_id":"3f2a","correlation_id":"9c1d"}"#
        let (client, _) = client(status: .badRequest, body: answer)
        let error = try #require(await tokenError { try await client.refresh(refreshToken: "RT") })
        #expect(error.isLoginRequired)
        #expect(error.oauthError?.error == "interaction_required")
        #expect(error.oauthError?.extras["error_codes"] == "[50076]", "kept as its JSON text")
        #expect(error.oauthError?.extras["suberror"] == "basic_action")
        // checks the sentence's help: the provider's own code, which its documentation explains.
        #expect(error.description.contains("AADSTS50076"))
    }

    @Test("descriptions never contain the refresh token, password or client secret, even when the server echoes them")
    func descriptionsRedactSecrets() async {
        let echo = #"{"error":"invalid_grant","error_description":"token RT-SECRET-123 for CLIENT-SECRET / PASS-SECRET is bad"}"#
        let (client, _) = client(status: .badRequest, body: echo)
        let refreshError = await tokenError { try await client.refresh(refreshToken: "RT-SECRET-123") }
        let passwordError = await tokenError { try await client.password(username: "bob", password: "PASS-SECRET") }
        for error in [refreshError, passwordError].compactMap({ $0 }) {
            for text in [error.description, error.oauthError?.errorDescription ?? "", String(reflecting: error)] {
                #expect(!text.contains("CLIENT-SECRET"))
            }
        }
        #expect(refreshError?.description.contains("RT-SECRET-123") == false)
        #expect(refreshError?.oauthError?.errorDescription?.contains("<redacted>") == true)
        #expect(passwordError?.description.contains("PASS-SECRET") == false)
    }

    @Test("a malformed answer's description does not echo the body")
    func malformedDoesNotEchoBody() async {
        let (client, _) = client(status: .ok, body: #"{"refresh_token":"RT-IN-BODY"}"#)
        let error = await tokenError { try await client.refresh(refreshToken: "RT") }
        #expect(error?.code == .malformedResponse)
        #expect(error?.description.contains("RT-IN-BODY") == false)
    }

    @Test("server-supplied descriptions are limited to printable ASCII and bounded in length")
    func sanitizedDescription() async {
        let long = String(repeating: "a", count: 2000)
        let (client, _) = client(status: .badRequest, body: #"{"error":"invalid_grant","error_description":"line\nbreak\u001b[31m \#(long)"}"#)
        let error = await tokenError { try await client.clientCredentials() }
        let text = error?.oauthError?.errorDescription ?? ""
        #expect(!text.contains("\n"))
        #expect(!text.contains("\u{1b}"))
        #expect(text.count <= 501)
    }

    @Test("each description says what happened and how to fix it")
    func descriptionsHaveFixIts() {
        // checks the sentence's help: each says what to do (five checks).
        #expect(TokenAuthError.invalidGrant.description.contains("sign in again"))
        #expect(TokenAuthError.invalidClient.description.contains("client secret"))
        #expect(TokenAuthError.serverError.description.contains("retry later"))
        #expect(TokenAuthError.insecureEndpoint("token endpoint", scheme: "http", host: "h").description.contains("https://"))
        #expect(TokenAuthError.networkFailure.description.contains("tokens were kept"))
    }

    @Test("a plain-HTTP token endpoint on another host is refused before anything is sent")
    func insecureEndpointRefusedBeforeSending() async {
        let transport = CannedTransport(json: #"{"access_token":"at"}"#)
        let oauthClient = OAuthClient(tokenEndpoint: URL(string: "http://auth.example.com/token")!, clientID: "app", clientSecret: "S")
        let client = TokenEndpointClient(client: oauthClient, transport: transport)
        let error = await tokenError { try await client.refresh(refreshToken: "RT") }
        #expect(error?.code == .insecureEndpoint)
        #expect(error?.isTransient == false)
        #expect(transport.sendCount == 0)
    }

    @Test("client_secret_basic or _post without a secret is a configuration error, and nothing is sent")
    func missingSecret() async {
        for authentication in [OAuthClient.Authentication.clientSecretBasic, .clientSecretPost] {
            let transport = CannedTransport(json: #"{"access_token":"at"}"#)
            let oauthClient = OAuthClient(tokenEndpoint: endpoint, clientID: "app", authentication: authentication)
            let client = TokenEndpointClient(client: oauthClient, transport: transport)
            let error = await tokenError { try await client.clientCredentials() }
            #expect(error?.code == .invalidClientConfiguration)
            #expect(transport.sendCount == 0)
        }
    }

    @Test("the request is a form POST that asks for JSON")
    func requestShape() async throws {
        let (client, transport) = client(status: .ok, body: #"{"access_token":"at"}"#, secret: nil)
        _ = try await client.refresh(refreshToken: "r t&", scope: "read write")
        let request = try #require(transport.lastRequest)
        #expect(request.method == .post)
        #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(request.headerFields[.accept] == "application/json")
        #expect(request.headerFields[.authorization] == nil)
        #expect(transport.lastBody == "grant_type=refresh_token&refresh_token=r+t%26&scope=read+write&client_id=app")
    }

    @Test("errors of the transport become transient network or timeout errors of the endpoint")
    func transportErrors() {
        let timedOut = TokenAuthError(urlError: URLError(.timedOut))
        #expect(TokenAuthError.unreachable("token endpoint", host: "h", because: timedOut).code == .timedOut)
        #expect(TokenAuthError.unreachable("token endpoint", host: "h", because: TokenAuthError.networkFailure).code == .networkFailure)
        #expect(TokenAuthError.unreachable("token endpoint", host: "h", because: TokenAuthError.responseTooLarge(limit: 10)).code == .malformedResponse)
        #expect(TokenAuthError.unreachable("token endpoint", host: "h", because: TokenAuthError.networkFailure).isTransient)
    }

    @Test("a URLError's cause is named in words in the sentence; its code stays in `underlying` and in the log")
    func transportFailuresInWords() {
        let causes: [(URLError.Code, String)] = [
            (.cannotFindHost, "the host name was not found"), (.cannotConnectToHost, "the connection was refused"),
            (.secureConnectionFailed, "the TLS handshake failed"), (.networkConnectionLost, "the connection was lost"),
            (.serverCertificateUntrusted, "the server's TLS certificate is not trusted"),
            (.notConnectedToInternet, "there is no network connection"),
        ]
        for (code, words) in causes {
            let transport = TokenAuthError(urlError: URLError(code))
            let endpoint = TokenAuthError.unreachable("token endpoint", host: "auth.example.com", because: transport)
            // checks the sentence's help: the cause in words, with the host (two checks).
            #expect(transport.description.contains(words), "\(transport)")
            #expect(endpoint.description.contains("(auth.example.com: \(words))"), "\(endpoint)")
            for text in [transport.description, endpoint.description] {
                #expect(!text.contains("URLError") && !text.contains("\(code.rawValue)"), "\(text)")
            }
            #expect((transport.underlying as? URLError)?.code == code)
            #expect(LogRedaction.error(endpoint) == "TokenAuthError.networkFailure (URLError \(code.rawValue))")
        }
        let timedOut = TokenAuthError(urlError: URLError(.timedOut))
        #expect(timedOut.code == .timedOut, "\(timedOut)")
        #expect(LogRedaction.error(timedOut) == "TokenAuthError.timedOut (URLError -1001)")
    }
}

extension TokenEndpointErrorTests {
    @Test("an error answer's extras of every JSON kind are kept as compact JSON, object members sorted")
    func extrasOfEveryKind() throws {
        let body = #"{"error":"invalid_grant","n":1.5,"i":-7,"t":true,"z":null,"o":{"b":[1,"x/y"],"a":{}},"s":"text"}"#
        let answer = try #require(OAuthErrorResponse.parse(Data(body.utf8), secrets: []))
        #expect(answer.error == "invalid_grant")
        #expect(answer.extras == [
            "n": "1.5", "i": "-7", "t": "true", "z": "null", "o": #"{"a":{},"b":[1,"x/y"]}"#, "s": "text",
        ])
        #expect(OAuthErrorResponse.parse(Data(#"["error"]"#.utf8), secrets: []) == nil, "not an object")
        #expect(OAuthErrorResponse.parse(Data(#"{"error":7}"#.utf8), secrets: []) == nil, "no string error")
    }
}
