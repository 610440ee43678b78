import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import TokenAuthURLSession

@Suite("URLSessionHTTPTransport's redirects")
struct SessionDelegateTests {
    @Test("a redirect from https to plain http on the same host drops Authorization: a new scheme is a new origin")
    func downgradeRedirectDropsTheToken() {
        var redirected = URLRequest(url: URL(string: "http://api.example.com/me")!)
        redirected.setValue("Bearer secret-token", forHTTPHeaderField: "Authorization")

        let followed = SessionDelegate.redirect(redirected, from: URL(string: "https://api.example.com/me")!)

        #expect(followed.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(followed.url == redirected.url)
    }
}
