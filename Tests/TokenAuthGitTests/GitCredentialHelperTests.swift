import Foundation
import Testing
import TokenAuth
import TokenAuthGit
import TokenAuthTesting

/// The helper's decisions over a session in memory, grants counted at a scripted token endpoint.
@Suite("GitCredentialHelper: get, erase and the host binding")
struct GitCredentialHelperTests {
    static let host = GitHost(url: URL(string: "https://git.example.com/group/repo.git")!)!

    static func helper(
        expiresIn: TimeInterval, offersBearer: Bool = false
    ) -> (GitCredentialHelper, ScriptedTokenEndpoint, ManualWallClock) {
        let clock = ManualWallClock()
        let endpoint = ScriptedTokenEndpoint(wallClock: clock.wallClock)
        let store = InMemoryAuthStore(Auth(
            accessToken: "access-0", refreshToken: "refresh-0", expiresAt: clock.now.addingTimeInterval(expiresIn)))
        let manager = AuthManager(store: store, refresher: endpoint, wallClock: clock.wallClock)
        return (GitCredentialHelper(manager: manager, host: host, offersBearer: offersBearer), endpoint, clock)
    }

    static func request(_ text: String) throws -> GitCredential { try GitCredential(parsing: text) }

    @Test("get answers oauth2, the access token and its expiry; an expired token is refreshed first, once")
    func get() async throws {
        let (helper, endpoint, _) = Self.helper(expiresIn: -1)
        let answer = try #require(try await helper.get(Self.request("protocol=https\nhost=git.example.com\n")))
        #expect(answer.username == "oauth2")
        #expect(answer.password == "access-1")
        #expect(answer.passwordExpiry != nil)
        #expect(endpoint.grantCount == 1)
        #expect(try !answer.formatted().contains("refresh"))
    }

    @Test("another host, another protocol or port, or no host: nothing, and no refresh")
    func hostBinding() async throws {
        let (helper, endpoint, _) = Self.helper(expiresIn: -1)
        for text in ["protocol=https\nhost=evil.example.com\n", "protocol=http\nhost=git.example.com\n",
                     "protocol=https\nhost=git.example.com:8443\n", "protocol=https\n"] {
            #expect(try await helper.get(Self.request(text)) == nil, "\(text)")
        }
        #expect(endpoint.grantCount == 0)
        #expect(try await helper.get(Self.request("protocol=HTTPS\nhost=Git.Example.com\n")) != nil)
    }

    @Test("with --bearer, a git that offers capability authtype gets authtype=Bearer and the token as its credential")
    func bearer() async throws {
        let (helper, _, _) = Self.helper(expiresIn: 3600, offersBearer: true)
        let answer = try #require(try await helper.get(Self.request("capability[]=authtype\nprotocol=https\nhost=git.example.com\n")))
        #expect(answer.authType == "Bearer" && answer.credential == "access-0" && answer.password == nil)
        let older = try #require(try await helper.get(Self.request("protocol=https\nhost=git.example.com\n")))
        #expect(older.authType == nil && older.password == "access-0")
    }

    @Test("erase of the current token refreshes once, however many gits erase it; a stale or foreign password changes nothing")
    func erase() async throws {
        let (helper, endpoint, _) = Self.helper(expiresIn: 3600)
        try await helper.erase(Self.request("protocol=https\nhost=git.example.com\nusername=oauth2\npassword=a-pat-of-another-helper\n"))
        try await helper.erase(Self.request("protocol=https\nhost=evil.example.com\npassword=access-0\n"))
        #expect(endpoint.grantCount == 0)

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { try await helper.erase(Self.request("protocol=https\nhost=git.example.com\npassword=access-0\n")) }
            }
            try await group.waitForAll()
        }
        #expect(endpoint.grantCount == 1)
        let answer = try #require(try await helper.get(Self.request("protocol=https\nhost=git.example.com\n")))
        #expect(answer.password == "access-1")
        // The token erased before is stale now: erasing it again changes nothing.
        try await helper.erase(Self.request("protocol=https\nhost=git.example.com\npassword=access-0\n"))
        #expect(endpoint.grantCount == 1)
    }
}
