import Foundation
import HTTPTypes
import OAuthTestServer
import OAuthTestSupport
import TestSupport
import Testing
@testable import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn
import TokenAuthURLSession

@Suite("Discovery (RFC 8414, OpenID Connect Discovery) against the local OAuth server")
struct DiscoveryTests {
    /// The real transport with the patience of a busy CI machine.
    static let discovery = Discovery(
        transport: URLSessionHTTPTransport(maximumResponseBodySize: AuthorizationServerMetadata.maximumSize, timeout: .seconds(60)),
        timeLimit: .seconds(600))

    @Test(
        "each well-known URL is found in order: the earlier ones are asked once each, the later ones not at all",
        arguments: OAuthTestServer.WellKnownURL.allCases)
    func wellKnownOrder(served: OAuthTestServer.WellKnownURL) async throws {
        try await withServer { server in
            server.discovery.issuerPath = "/tenant-a"
            server.discovery.servedAt = [served]
            let metadata = try await Self.discovery.metadata(forIssuer: server.issuer)

            #expect(metadata.issuer == server.baseURL.absoluteString + "/tenant-a")
            #expect(metadata.tokenEndpoint == server.tokenEndpoint)
            let order = OAuthTestServer.WellKnownURL.allCases
            let position = try #require(order.firstIndex(of: served))
            for (index, form) in order.enumerated() {
                #expect(server.discoveryRequests(at: form) == (index <= position ? 1 : 0), "\(form)")
            }
            #expect(server.totalDiscoveryRequests == position + 1)
        }
    }

    @Test("the well-known URLs are built as RFC 8414 §3.1 and OpenID Connect Discovery §4 say")
    func wellKnownURLs() throws {
        let withPath = try Discovery.metadataURLs(forIssuer: URL(string: "https://auth.example.com/tenant/a/")!)
        #expect(withPath.map(\.absoluteString) == [
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant/a",
            "https://auth.example.com/.well-known/openid-configuration/tenant/a",
            "https://auth.example.com/tenant/a/.well-known/openid-configuration",
        ])
        // Without a path the two openid-configuration forms are one URL, asked once.
        let withoutPath = try Discovery.metadataURLs(forIssuer: URL(string: "https://auth.example.com")!)
        #expect(withoutPath.map(\.absoluteString) == [
            "https://auth.example.com/.well-known/oauth-authorization-server",
            "https://auth.example.com/.well-known/openid-configuration",
        ])
    }

    @Test("every member the library reads comes through: endpoints, jwks_uri, code_challenge_methods_supported, iss support")
    func readsMembers() async throws {
        try await withServer { server in
            let base = server.baseURL.absoluteString
            server.discovery.additionalMembers = [
                "authorization_endpoint": .string(base + "/authorize"),
                "userinfo_endpoint": .string(base + "/userinfo"),
                "jwks_uri": .string(base + "/jwks"),
                "code_challenge_methods_supported": .strings(["S256"]),
                "revocation_endpoint": .number(7),  // the wrong type reads as absent, not as a broken document
            ]
            let metadata = try await Self.discovery.metadata(forIssuer: server.issuer)
            #expect(metadata == AuthorizationServerMetadata(
                issuer: base,
                tokenEndpoint: server.tokenEndpoint,
                authorizationEndpoint: URL(string: base + "/authorize"),
                revocationEndpoint: nil,
                deviceAuthorizationEndpoint: server.deviceAuthorizationEndpoint,
                userinfoEndpoint: URL(string: base + "/userinfo"),
                jwksURI: URL(string: base + "/jwks"),
                codeChallengeMethodsSupported: ["S256"],
                authorizationResponseIssParameterSupported: true))
            let client = metadata.client(id: "test-client")
            #expect(client.tokenEndpoint == server.tokenEndpoint)
            #expect(client.authentication == .none)
            // Found at the first URL; nothing else was asked.
            #expect(server.totalDiscoveryRequests == 1)
        }
    }

    @Test("a document naming another issuer is refused, and discovery stops there")
    func issuerMismatch() async throws {
        try await withServer { server in
            server.discovery.advertisedIssuer = "https://evil.example.com"
            let error = await expectSignInError(.issuerMismatch) {
                try await Self.discovery.metadata(forIssuer: server.issuer)
            }
            #expect(error?.isTransient == false)
            #expect(server.totalDiscoveryRequests == 1)

            // A trailing slash is a different issuer (RFC 8414 §3.3: identical).
            server.discovery.advertisedIssuer = nil
            await expectSignInError(.issuerMismatch) {
                try await Self.discovery.metadata(forIssuer: URL(string: server.baseURL.absoluteString + "/")!)
            }
        }
    }

    @Test("a document that is not JSON is refused as notJSON")
    func notJSON() async throws {
        try await withServer { server in
            server.discovery.servesHTML = true
            let error = await expectSignInError(.metadataNotJSON) {
                try await Self.discovery.metadata(forIssuer: server.issuer)
            }
            #expect(error?.isTransient == false)
        }
    }

    @Test("a document without a token endpoint is refused, naming the member")
    func missingTokenEndpoint() async throws {
        try await withServer { server in
            server.discovery.omittedMembers = ["token_endpoint"]
            let error = await expectSignInError(.missingEndpoint) {
                try await Self.discovery.metadata(forIssuer: server.issuer)
            }
            #expect(error?.member == "token_endpoint")
        }
    }

    @Test("an endpoint that would carry credentials over plain http to another host is refused")
    func insecureEndpointInDocument() async throws {
        try await withServer { server in
            server.discovery.additionalMembers = ["token_endpoint": .string("http://auth.example.com/token")]
            let error = await expectSignInError(.insecureEndpoint) {
                try await Self.discovery.metadata(forIssuer: server.issuer)
            }
            #expect(error?.member == "token_endpoint")
        }
    }

    @Test("no document at any URL: notFound names every URL tried, each asked once")
    func notFound() async throws {
        try await withServer { server in
            server.discovery.issuerPath = "/tenant-a"
            server.discovery.servedAt = []
            let error = await expectSignInError(.metadataNotFound) {
                try await Self.discovery.metadata(forIssuer: server.issuer)
            }
            #expect(error?.isTransient == false)
            #expect(error?.statusCode == 404)
            for form in OAuthTestServer.WellKnownURL.allCases {
                #expect(server.discoveryRequests(at: form) == 1)
                // checks the sentence's help: every URL tried.
                #expect(error.map { "\($0)".contains(server.metadataURL(form).absoluteString) } == true)
            }
        }
    }

    @Test("an insecure issuer (plain http, not loopback) is refused before any request")
    func insecureIssuer() async throws {
        let transport = CannedTransport(status: .ok, json: "{}")
        let discovery = Discovery(transport: transport)
        let error = await expectSignInError(.insecureIssuer) {
            try await discovery.metadata(forIssuer: URL(string: "http://auth.example.com")!)
        }
        #expect(error?.isTransient == false)
        await expectSignInError(.invalidIssuer) {
            try await discovery.metadata(forIssuer: URL(string: "https://auth.example.com/?tenant=a")!)
        }
        #expect(transport.sendCount == 0)
    }

    @Test("a redirect is not followed: it is an error naming the Location")
    func redirect() async throws {
        let transport = CannedTransport(status: .found, headers: [.location: "https://elsewhere.example.com/meta"], json: "")
        let error = await expectSignInError(.redirected) {
            try await Discovery(transport: transport).metadata(forIssuer: URL(string: "https://auth.example.com")!)
        }
        // checks the sentence's help: the Location.
        #expect(error.map { "\($0)".contains("https://elsewhere.example.com/meta") } == true)
        #expect(error?.statusCode == 302)
        #expect(transport.sendCount == 1)
    }

    @Test("every discovery request asks the transport not to follow redirects")
    func refusesRedirectsAtTheTransport() async throws {
        let recorder = RecordingTransport(passingTo: CannedTransport(status: .notFound, json: ""))
        await #expect(throws: SignInError.self) {
            try await Discovery(transport: recorder).metadata(forIssuer: URL(string: "https://auth.example.com/tenant")!)
        }
        #expect(recorder.exchanges.count == 3)
        #expect(recorder.exchanges.allSatisfy { $0.redirects == .refuse })
    }

    @Test("a 5xx is transient and stops discovery; it is not read as 'not here'")
    func serverError() async throws {
        let transport = CannedTransport(status: .serviceUnavailable, json: "")
        let error = await expectSignInError(.unavailable) {
            try await Discovery(transport: transport).metadata(forIssuer: URL(string: "https://auth.example.com")!)
        }
        #expect(error?.isTransient == true)
        #expect(transport.sendCount == 1)
    }

    @Test("a document over the size limit is refused, whatever the transport accepts")
    func tooLarge() async throws {
        let padding = String(repeating: " ", count: AuthorizationServerMetadata.maximumSize)
        let transport = CannedTransport(status: .ok, json: #"{"issuer":"https://auth.example.com"}"# + padding)
        await expectSignInError(.responseTooLarge) {
            try await Discovery(transport: transport).metadata(forIssuer: URL(string: "https://auth.example.com")!)
        }
    }

    @Test("the whole lookup is bounded by the time limit on the injected clock", .timeLimit(.minutes(1)))
    func timeLimit() async throws {
        let gate = Gate(isOpen: false)
        let clock = ManualClock()
        let discovery = Discovery(transport: HeldTransport(gate: gate), timeLimit: .seconds(30), clock: clock)
        let lookup = Task { try await discovery.metadata(forIssuer: URL(string: "https://auth.example.com")!) }
        await gate.waitUntilArrivals(1)
        // Not clock.waitUntilSleeps(1): it cannot be cancelled, and with a broken limit no sleep ever comes.
        try await waitUntil("the lookup's time limit to sleep on the clock") { !clock.sleeps.isEmpty }
        clock.advance(by: .seconds(29))
        #expect(gate.waiting == 1)
        clock.advance(by: .seconds(1))
        let error = await expectSignInError(.unavailable) {
            // Cancelled with the test (e.g. past its time limit), so a broken limit fails instead of hanging.
            try await withTaskCancellationHandler { try await lookup.value } onCancel: { lookup.cancel() }
        }
        #expect(error?.isTransient == true)
        #expect(gate.waiting == 0)  // the request in flight was cancelled
    }
}

/// A transport that holds every request at a gate, then answers 404.
private struct HeldTransport: HTTPTransport {
    let gate: Gate

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        try await gate.pass()
        return (HTTPResponse(status: .notFound), Data())
    }
}
