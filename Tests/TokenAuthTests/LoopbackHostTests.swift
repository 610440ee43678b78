import Foundation
import Testing
@testable import TokenAuth

@Suite("Which token endpoints may use plain HTTP")
struct LoopbackHostTests {
    @Test("loopback hosts are recognised", arguments: [
        "localhost", "LOCALHOST", "localhost.", "127.0.0.1", "127.255.0.9", "::1", "[::1]", "0:0:0:0:0:0:0:1",
        "::ffff:127.0.0.1",
    ])
    func loopback(host: String) {
        #expect(LoopbackHost.contains(host))
    }

    @Test("other hosts are not", arguments: [
        "example.com", "localhost.example.com", "mylocalhost", "128.0.0.1", "10.0.0.1", "0.0.0.0", "::", "::2",
        "[fe80::1]", "127.0.0.1.nip.io", "", "127.0.0.1\u{0}.example.com",
    ])
    func notLoopback(host: String) {
        #expect(!LoopbackHost.contains(host))
    }

    @Test("https endpoints are allowed anywhere; http only on loopback", arguments: [
        ("https://auth.example.com/token", true),
        ("http://127.0.0.1:8080/token", true),
        ("http://localhost/token", true),
        ("http://[::1]:9000/token", true),
        ("HTTP://LOCALHOST/token", true),
        ("http://auth.example.com/token", false),
        ("http://192.168.1.10/token", false),
        ("ftp://127.0.0.1/token", false),
        ("file:///tmp/token", false),
        // Found by the discovery-document fuzz target: the decoded host of the first reads `localhost.`, of the
        // second `127.0.0.1` up to its NUL, as inet_pton reads it.
        ("http://localhost%2e:8080/token", false),
        ("http://127.0.0.1%00.evil.example/token", false),
        ("http://%31%32%37.0.0.1/token", false),
    ])
    func transportSecurity(endpoint: String, allowed: Bool) throws {
        let url = try #require(URL(string: endpoint))
        let refused = (try? TokenEndpointClient.checkTransportSecurity(of: url)) == nil
        #expect(refused == !allowed)
        #expect(url.canCarryCredentials == allowed, "every credential check agrees")
    }
}
