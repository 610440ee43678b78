import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import OAuthTestServer
import OAuthTestSupport
import Testing
import TokenAuth

/// Token endpoints that answer form-encoded, as GitHub's does unless asked for JSON: against a real
/// `OAuthTestServer` configured to behave that way.
@Suite("Form-encoded token answers (GitHub)")
struct ProviderAnswerFormatTests {
    private func configuration(_ format: OAuthTestServer.TokenAnswerFormat) -> OAuthTestServer.Configuration {
        var configuration = OAuthTestServer.Configuration()
        configuration.tokenAnswers = format
        return configuration
    }

    @Test("GitHub's way: the client asks for JSON and gets it; a request without Accept gets a form")
    func formUnlessJSONAccepted() async throws {
        try await withServer(configuration(.formUnlessJSONAccepted)) { server in
            let issued = server.issueTokens(clientID: "test-client", subject: "alice")
            let response = try await server.tokenClient().refresh(refreshToken: try #require(issued.refreshToken))
            #expect(!response.accessToken.isEmpty)
            #expect(server.stats.successfulRefreshes == 1)

            // What the server sends to a client that does not ask for JSON.
            var request = URLRequest(url: server.tokenEndpoint)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("grant_type=refresh_token&refresh_token=not-issued&client_id=test-client".utf8)
            let (body, answer) = try await URLSession.shared.data(for: request)
            let http = try #require(answer as? HTTPURLResponse)
            #expect(http.statusCode == 200, "GitHub answers errors with 200 too")
            #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
            #expect(String(decoding: body, as: UTF8.self).contains("error=invalid_grant"))
        }
    }

    @Test("a server that always answers form-encoded: tokens are read, and an error in a 200 is an error")
    func alwaysForm() async throws {
        try await withServer(configuration(.form)) { server in
            let issued = server.issueTokens(clientID: "test-client", subject: "alice")
            let refreshToken = try #require(issued.refreshToken)
            let response = try await server.tokenClient().refresh(refreshToken: refreshToken)
            #expect(!response.accessToken.isEmpty)
            #expect(response.expiresAt != nil, "expires_in, a string in a form, is read")
            #expect(response.refreshToken != nil && response.refreshToken != refreshToken)

            do {
                _ = try await server.tokenClient().refresh(refreshToken: "not-issued")
                Issue.record("an unknown refresh token was accepted")
            } catch let error as TokenAuthError {
                #expect(error == .invalidGrant)
                #expect(error.statusCode == 200)
                #expect(error.isLoginRequired)
            }
        }
    }
}
