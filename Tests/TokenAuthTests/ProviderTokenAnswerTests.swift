import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OAuthTestServer
import OAuthTestSupport
import Testing
@testable import TokenAuth

/// Token answers shaped as providers shape them, from a real `OAuthTestServer` configured to answer so.
@Suite("Providers' token answers: GitHub's comma-separated scopes, Microsoft's ext_expires_in")
struct ProviderTokenAnswerTests {
    @Test("GitHub's comma-separated scope reads as a space-separated one, in JSON and in a form")
    func commaScopes() async throws {
        for format in [OAuthTestServer.TokenAnswerFormat.json, .form] {
            var configuration = OAuthTestServer.Configuration()
            configuration.scopeSeparator = ","
            configuration.tokenAnswers = format
            try await withServer(configuration) { server in
                let issued = server.issueTokens(clientID: "test-client", subject: "alice", scope: "repo gist")
                let response = try await server.tokenClient().refresh(refreshToken: try #require(issued.refreshToken))
                #expect(response.scope == "repo gist", "\(format)")
                let auth = response.auth(updating: nil)
                #expect(auth.scope == "repo gist")
            }
        }
        #expect(TokenResponse.spaceSeparated("repo,,gist, user") == "repo gist user")
        #expect(TokenResponse.spaceSeparated(" , ") == nil)
    }

    @Test("Microsoft's ext_expires_in is not the token's lifetime: expires_in is")
    func extendedExpiry() async throws {
        var configuration = OAuthTestServer.Configuration()
        configuration.accessTokenLifetime = .seconds(3599)
        configuration.extendedExpiresIn = .seconds(86_399)
        try await withServer(configuration) { server in
            let issued = server.issueTokens(clientID: "test-client", subject: "alice")
            var request = URLRequest(url: server.tokenEndpoint)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(
                "grant_type=refresh_token&client_id=test-client&refresh_token=\(try #require(issued.refreshToken))".utf8)
            let (body, _) = try await URLSession.shared.data(for: request)
            #expect(String(decoding: body, as: UTF8.self).contains(#""ext_expires_in":86399"#))
            let sentAt = Date(timeIntervalSince1970: 1_800_000_000)
            let response = try TokenResponse.parse(data: body, sentAt: sentAt)
            #expect(response.expiresAt == sentAt.addingTimeInterval(3599))
        }
    }
}
