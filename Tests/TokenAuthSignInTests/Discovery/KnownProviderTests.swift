import Foundation
import Testing
import TokenAuthSignIn

@Suite("Known providers")
struct KnownProviderTests {
    @Test("github: the documented endpoints by hand, no discovery, no RFC 7009 revocation, the secret sent")
    func github() throws {
        let github = try KnownProvider.named("GitHub")
        #expect(github == .github)
        guard case .manual(let endpoints) = github.endpoints else {
            Issue.record("GitHub publishes no discovery document for OAuth apps")
            return
        }
        #expect(endpoints.authorization.absoluteString == "https://github.com/login/oauth/authorize")
        #expect(endpoints.token.absoluteString == "https://github.com/login/oauth/access_token")
        #expect(endpoints.deviceAuthorization?.absoluteString == "https://github.com/login/device/code")
        #expect(endpoints.revocation == nil)
        #expect(github.installedClientsSendSecret)
    }

    @Test("google, gitlab and a Microsoft tenant are discovered from their issuers")
    func discovered() throws {
        #expect(try KnownProvider.named("google").endpoints == .issuer(URL(string: "https://accounts.google.com")!))
        #expect(try KnownProvider.named("google").installedClientsSendSecret)
        #expect(try KnownProvider.named("gitlab").endpoints == .issuer(URL(string: "https://gitlab.com")!))
        let tenant = try KnownProvider.named("microsoft=contoso.onmicrosoft.com")
        #expect(tenant.endpoints == .issuer(URL(string: "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0")!))
        #expect(!tenant.installedClientsSendSecret)
    }

    @Test("an unknown name, Microsoft without a tenant, a multi-tenant alias or a malformed tenant: unknownProvider",
          arguments: ["gitea", "", "microsoft", "microsoft=common", "microsoft=Organizations", "microsoft=", "microsoft=a/b"])
    func unknown(_ name: String) {
        #expect(throws: SignInError.self) { try KnownProvider.named(name) }
        do {
            _ = try KnownProvider.named(name)
        } catch {
            #expect(error.code == .unknownProvider)
            #expect(error.isMisconfiguration)
        }
    }
}
