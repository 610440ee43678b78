import Foundation
import HTTPTypes
import Synchronization
import Testing
import TokenAuth
import TokenAuthDPoP
import TokenAuthTesting

/// The answers servers give DPoP clients (RFC 9449 §5, §7, §8, §9), scripted one by one: nonces retried once and never
/// counted as failures, refused proofs reported as such with the tokens kept.
@Suite("DPoP: nonces and refusals")
struct DPoPExchangeTests {
    static let tokenURL = URL(string: "https://auth.example/token")!
    static let resourceURL = URL(string: "https://api.example/v1/me?x=1")!

    @Test("a token endpoint's use_dpop_nonce is answered once with its nonce; a 200's nonce is kept")
    func tokenEndpointNonce() async throws {
        let (dpop, key) = try await Self.dpop()
        let transport = ScriptedTransport([
            .nonceNeeded(status: .badRequest, nonce: "n1", resource: false),
            .tokens(nonce: "n2"),
        ])
        let client = TokenEndpointClient(
            client: OAuthClient(tokenEndpoint: Self.tokenURL, clientID: "app"), transport: transport, dpop: dpop)
        let tokens = try await client.refresh(refreshToken: "rt", scope: nil, proofKey: key)
        #expect(tokens.tokenType == "DPoP")
        let proofs = try await transport.proofs()
        #expect(proofs.map(\.nonce) == [nil, "n1"])
        #expect(proofs.allSatisfy { $0.htu == "https://auth.example/token" && $0.htm == "POST" && $0.ath == nil })
        #expect(dpop.nonce(for: HTTPRequest(method: .post, url: Self.tokenURL)) == "n2")
    }

    @Test("asked for the nonce another request kept meanwhile, the request is sent again with it")
    func nonceKeptMeanwhile() async throws {
        let (dpop, key) = try await Self.dpop()
        let once = Mutex(true)
        let transport = ScriptedTransport(
            [.nonceNeeded(status: .badRequest, nonce: "n1", resource: false), .tokens(nonce: nil)],
            arrived: { request in
                // The first request is in flight when another one's answer brings n1.
                let first = once.withLock { isFirst in
                    defer { isFirst = false }
                    return isFirst
                }
                guard first else { return }
                dpop.noteNonce(in: HTTPResponse(status: .ok, headerFields: [HTTPField.Name("DPoP-Nonce")!: "n1"]), to: request)
            })
        let client = TokenEndpointClient(
            client: OAuthClient(tokenEndpoint: Self.tokenURL, clientID: "app"), transport: transport, dpop: dpop)
        #expect(try await client.refresh(refreshToken: "rt", scope: nil, proofKey: key).tokenType == "DPoP")
        #expect(try await transport.proofs().map(\.nonce) == [nil, "n1"])
    }

    @Test("a second use_dpop_nonce, or an invalid_dpop_proof with 400 or 403, is proofRefused: no sign-in, nothing more sent")
    func tokenEndpointRefusals() async throws {
        for answers: [ScriptedTransport.Answer] in [
            [.nonceNeeded(status: .badRequest, nonce: "n1", resource: false), .nonceNeeded(status: .badRequest, nonce: "n2", resource: false)],
            [.proofRefused(status: .badRequest, resource: false)],
            [.proofRefused(status: .forbidden, resource: false)],
        ] {
            let (dpop, key) = try await Self.dpop()
            let transport = ScriptedTransport(answers)
            let client = TokenEndpointClient(
                client: OAuthClient(tokenEndpoint: Self.tokenURL, clientID: "app"), transport: transport, dpop: dpop)
            let error = await #expect(throws: TokenAuthError.self) {
                try await client.refresh(refreshToken: "rt", scope: nil, proofKey: key)
            }
            #expect(error?.code == .proofRefused)
            #expect(error?.isMisconfiguration == true && error?.isLoginRequired == false)
            #expect(transport.sent == answers.count)
        }
    }

    @Test("a refused proof keeps the stored refresh token, and AuthManager does not ask for a sign-in")
    func refusedRefreshKeepsTokens() async throws {
        let (dpop, key) = try await Self.dpop()
        let clock = ManualWallClock()
        let stored = Auth(
            accessToken: "old", tokenType: "DPoP", refreshToken: "rt-1", expiresAt: clock.now.addingTimeInterval(-1),
            proofKey: key)
        let store = InMemoryAuthStore(stored)
        let transport = ScriptedTransport([.proofRefused(status: .badRequest, resource: false)])
        let manager = AuthManager(
            store: store,
            refresher: TokenEndpointClient(
                client: OAuthClient(tokenEndpoint: Self.tokenURL, clientID: "app"), transport: transport,
                wallClock: clock.wallClock, dpop: dpop),
            wallClock: clock.wallClock)
        let error = await #expect(throws: TokenAuthError.self) { try await manager.validAuth() }
        #expect(error?.code == .proofRefused)
        #expect(store.current?.refreshToken == "rt-1")
        #expect(store.current?.proofKey == key)
    }

    @Test("a client's bound tokens (no refresh token) are renewed by the client credentials grant with a proof of the key")
    func clientCredentialsRenewal() async throws {
        let (dpop, key) = try await Self.dpop()
        let clock = ManualWallClock()
        let store = InMemoryAuthStore(Auth(
            accessToken: "old", tokenType: "DPoP", expiresAt: clock.now.addingTimeInterval(-1), proofKey: key))
        let transport = ScriptedTransport([.tokens(nonce: nil)])
        let manager = AuthManager(
            store: store,
            refresher: TokenEndpointClient(
                client: OAuthClient(tokenEndpoint: Self.tokenURL, clientID: "app"), transport: transport,
                wallClock: clock.wallClock, dpop: dpop),
            configuration: .init(usesClientCredentials: true),
            wallClock: clock.wallClock)
        _ = try await manager.validAuth()
        #expect(transport.sent == 1)
        let proof = try #require(transport.requests.first?.headerFields[HTTPField.Name("DPoP")!])
        let (header, claims) = try await ProofTests.verify(proof)
        #expect(JWKThumbprint.of(requiredMembers: header.jwk) == key.thumbprint)
        #expect(claims.htu == Self.tokenURL.absoluteString && claims.ath == nil)
        #expect(store.current?.proofKey == key)
        #expect(store.current?.accessToken != "old")
    }

    @Test("a bound session without a DPoP provider fails before the refresh token is sent")
    func noProvider() async throws {
        let (_, key) = try await Self.dpop()
        let clock = ManualWallClock()
        let store = InMemoryAuthStore(Auth(
            accessToken: "old", tokenType: "DPoP", refreshToken: "rt-1", expiresAt: clock.now.addingTimeInterval(-1),
            proofKey: key))
        let transport = ScriptedTransport([.tokens(nonce: nil)])
        let manager = AuthManager(
            store: store,
            refresher: TokenEndpointClient(
                client: OAuthClient(tokenEndpoint: Self.tokenURL, clientID: "app"), transport: transport,
                wallClock: clock.wallClock),
            wallClock: clock.wallClock)
        let error = await #expect(throws: TokenAuthError.self) { try await manager.validAuth() }
        #expect(error?.code == .proofKeyUnavailable)
        #expect(transport.sent == 0)
        #expect(store.current?.refreshStartedAt == nil)
    }

    @Test("a key that cannot be had just now (proofKeyUnavailable) holds nothing against the refresh token: the next call refreshes")
    func keyUnavailableForAMoment() async throws {
        let (dpop, key) = try await Self.dpop()
        let clock = ManualWallClock()
        let store = InMemoryAuthStore(Auth(
            accessToken: "old", tokenType: "DPoP", refreshToken: "rt-1", expiresAt: clock.now.addingTimeInterval(-1),
            proofKey: key))
        let transport = ScriptedTransport([.tokens(nonce: nil)])
        let refresher = AwayOnce(TokenEndpointClient(
            client: OAuthClient(tokenEndpoint: Self.tokenURL, clientID: "app"), transport: transport,
            wallClock: clock.wallClock, dpop: dpop))
        let manager = AuthManager(store: store, refresher: refresher, wallClock: clock.wallClock)
        let error = await #expect(throws: TokenAuthError.self) { try await manager.validAuth() }
        #expect(error?.code == .proofKeyUnavailable)
        #expect(transport.sent == 0)
        #expect(store.current?.refreshStartedAt == nil)
        #expect(try await manager.validAuth().accessToken != "old")
        #expect(transport.sent == 1)
    }

    /// A refresher whose key device is away for its first `prepareProof(with:)`, as a TPM whose resource manager
    /// restarts.
    final class AwayOnce: TokenRefresher {
        let base: TokenEndpointClient
        private let calls = Mutex(0)
        init(_ base: TokenEndpointClient) { self.base = base }
        func refresh(refreshToken: String, scope: String?) async throws -> TokenResponse {
            try await base.refresh(refreshToken: refreshToken, scope: scope)
        }
        func clientCredentials(scope: String?) async throws -> TokenResponse { try await base.clientCredentials(scope: scope) }
        func refresh(refreshToken: String, scope: String?, proofKey: ProofKey?) async throws -> TokenResponse {
            try await base.refresh(refreshToken: refreshToken, scope: scope, proofKey: proofKey)
        }
        func prepareProof(with key: ProofKey) async throws {
            let call = calls.withLock { $0 += 1; return $0 }
            if call == 1 { throw TokenAuthError.proofKeyUnavailable("The TPM did not answer.", fix: "Try again.") }
            try await base.prepareProof(with: key)
        }
    }

    @Test("a resource's use_dpop_nonce is answered once with its nonce, without a refresh; the request carries DPoP and ath")
    func resourceNonce() async throws {
        let (dpop, key) = try await Self.dpop()
        let (client, transport, tokens) = try await Self.client(
            dpop: dpop, key: key, answers: [.nonceNeeded(status: .unauthorized, nonce: "r1", resource: true), .ok])
        let (response, _) = try await client.send(HTTPRequest(method: .get, url: Self.resourceURL))
        #expect(response.status == .ok)
        #expect(tokens.sent == 0)
        let requests = transport.requests
        #expect(requests.map { $0.headerFields[.authorization] } == ["DPoP at-1", "DPoP at-1"])
        let proofs = try await transport.proofs()
        #expect(proofs.map(\.nonce) == [nil, "r1"])
        #expect(proofs.allSatisfy { $0.htu == "https://api.example/v1/me" && $0.htm == "GET" && $0.ath != nil })
    }

    @Test("a resource's invalid_dpop_proof is proofRefused without a refresh; an empty 401 refreshes once, then is reported")
    func resourceRefusals() async throws {
        let (dpop, key) = try await Self.dpop()
        let (client, _, tokens) = try await Self.client(
            dpop: dpop, key: key, answers: [.proofRefused(status: .unauthorized, resource: true)])
        let refused = await #expect(throws: TokenAuthError.self) {
            try await client.send(HTTPRequest(method: .get, url: Self.resourceURL))
        }
        #expect(refused?.code == .proofRefused)
        #expect(tokens.sent == 0)

        let (again, transport, endpoint) = try await Self.client(
            dpop: dpop, key: key, answers: [.emptyUnauthorized, .emptyUnauthorized])
        let unauthorized = await #expect(throws: TokenAuthError.self) {
            try await again.send(HTTPRequest(method: .get, url: Self.resourceURL))
        }
        #expect(unauthorized?.code == .unauthorized)
        #expect(endpoint.sent == 1)
        #expect(transport.sent == 2)
    }

    // MARK: Set-up

    static func dpop() async throws -> (DPoP, ProofKey) {
        let keys = SoftwareProofKeys()
        return (DPoP(keys: keys), try await keys.makeKey())
    }

    /// An AuthorizedClient of a bound session whose resource answers `answers`, and whose token endpoint answers
    /// tokens.
    static func client(
        dpop: DPoP, key: ProofKey, answers: [ScriptedTransport.Answer]
    ) async throws -> (AuthorizedClient, ScriptedTransport, ScriptedTransport) {
        let clock = ManualWallClock()
        let store = InMemoryAuthStore(Auth(
            accessToken: "at-1", tokenType: "DPoP", refreshToken: "rt-1", expiresAt: clock.now.addingTimeInterval(3600),
            proofKey: key))
        let tokens = ScriptedTransport([.tokens(nonce: nil)])
        let manager = AuthManager(
            store: store,
            refresher: TokenEndpointClient(
                client: OAuthClient(tokenEndpoint: tokenURL, clientID: "app"), transport: tokens,
                wallClock: clock.wallClock, dpop: dpop),
            wallClock: clock.wallClock)
        let transport = ScriptedTransport(answers)
        return (AuthorizedClient(manager: manager, transport: transport, dpop: dpop), transport, tokens)
    }
}
