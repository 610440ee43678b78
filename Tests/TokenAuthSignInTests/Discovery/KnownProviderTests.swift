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
        let tenant = try KnownProvider.named("microsoft=AAAAAAAA-bbbb-cccc-dddd-eeeeeeeeeeee")
        #expect(tenant.endpoints == .issuer(URL(string: "https://login.microsoftonline.com/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee/v2.0")!))
        #expect(!tenant.installedClientsSendSecret)
    }

    @Test("microsoft alone is common; common, organizations as asked; consumers from the consumer tenant's issuer")
    func microsoftAliases() throws {
        let base = "https://login.microsoftonline.com/"
        #expect(try KnownProvider.named("microsoft").endpoints == .issuer(URL(string: base + "common/v2.0")!))
        #expect(try KnownProvider.named("microsoft=common") == KnownProvider.named("microsoft"))
        #expect(try KnownProvider.named("microsoft=Organizations").endpoints == .issuer(URL(string: base + "organizations/v2.0")!))
        #expect(try KnownProvider.named("microsoft=consumers").endpoints
            == .issuer(URL(string: base + "9188040d-6c67-4c5b-b112-36a304b66dad/v2.0")!))
    }

    @Test("an unknown name, a tenant's domain (its metadata names the tenant id) or a malformed tenant: unknownProvider",
          arguments: ["gitea", "", "microsoft=contoso.onmicrosoft.com", "microsoft=", "microsoft=a/b",
                      "microsoft=aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeee", "microsoft=gggggggg-bbbb-cccc-dddd-eeeeeeeeeeee"])
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
