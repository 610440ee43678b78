#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import Synchronization

/// Proof of possession for one app's requests (DPoP, RFC 9449): the key provider, and what the servers said.
///
/// Give the same value to the ``TokenEndpointClient`` and to the ``AuthorizedClient`` of a session, so that both sign
/// with the keys the provider loads and follow each other's nonces:
///
/// ```swift
/// import TokenAuth
/// import TokenAuthDPoP
///
/// let dpop = DPoP(keys: SoftwareProofKeys())
/// let tokens = TokenEndpointClient(client: oauthClient, transport: transport, dpop: dpop)
/// let client = AuthorizedClient(manager: manager, transport: transport, dpop: dpop)
/// ```
///
/// A session's tokens are bound when its ``Auth/proofKey`` is set: refreshes then carry a proof from that key, and
/// requests with a `DPoP` token carry `Authorization: DPoP …` and a proof with `ath`. A server's newest `DPoP-Nonce`,
/// from any answer, is kept per origin and put in the next proof to it; an answer asking for a nonce
/// (`use_dpop_nonce`) is sent again once with it. Another process rotating the nonce is normal: its servers' answers
/// bring the new one.
public struct DPoP: Sendable {
    /// Loads the stored keys and makes new ones.
    public let keys: any ProofKeyProvider
    private let state: State

    /// Creates a proof-of-possession context.
    ///
    /// - Parameter keys: The key provider: `SoftwareProofKeys` (module `TokenAuthDPoP`) or a TPM's.
    public init(keys: any ProofKeyProvider) {
        self.keys = keys
        state = State()
    }

    /// The `DPoP` header's value for `request`: a proof from `key`, with `ath` for `accessToken` and the origin's
    /// newest nonce.
    package func proof(for request: HTTPRequest, key: ProofKey, accessToken: String?) async throws -> String {
        try await proof(for: request, key: key, accessToken: accessToken, nonce: nonce(for: request))
    }

    /// The `DPoP` header's value for `request`: a proof from `key`, with `ath` for `accessToken` and `nonce`.
    package func proof(for request: HTTPRequest, key: ProofKey, accessToken: String?, nonce: String?) async throws -> String {
        let signer = try await signer(for: key)
        return try await signer.proof(
            for: DPoPProofRequest(
                method: request.method.rawValue, url: Self.htu(of: request), accessToken: accessToken, nonce: nonce))
    }

    /// Keeps the `DPoP-Nonce` of `response`, if it has one, as the newest nonce of `request`'s origin.
    /// - Returns: Whether the answer brought a nonce other than the one kept.
    @discardableResult
    package func noteNonce(in response: HTTPResponse, to request: HTTPRequest) -> Bool {
        guard let nonce = response.headerFields[Self.nonceField], !nonce.isEmpty else { return false }
        let origin = Self.origin(of: request)
        return state.nonces.withLock { nonces in
            defer { nonces[origin] = nonce }
            return nonces[origin] != nonce
        }
    }

    /// The newest nonce `request`'s origin gave, if any.
    package func nonce(for request: HTTPRequest) -> String? {
        let origin = Self.origin(of: request)
        return state.nonces.withLock { $0[origin] }
    }

    /// A signer for `key`, loaded once per key and kept.
    package func signer(for key: ProofKey) async throws -> any DPoPSigner {
        if let signer = state.signers.withLock({ $0[key] }) { return signer }
        let signer = try await keys.signer(for: key)
        state.signers.withLock { signers in
            // Keys change at sign-ins only: a few are enough, and past the limit the cache starts again.
            if signers.count >= State.signerLimit { signers.removeAll() }
            signers[key] = signer
        }
        return signer
    }

    /// `DPoP-Nonce` (RFC 9449 §8).
    package static let nonceField = HTTPField.Name("DPoP-Nonce")!
    /// `DPoP` (RFC 9449 §4.1).
    package static let proofField = HTTPField.Name("DPoP")!

    /// The proof's `htu` for `request`: its URL without query and fragment, written as the request's URL was
    /// (RFC 9449 §4.3: servers compare it after normalising, and some do not).
    package static func htu(of request: HTTPRequest) -> String {
        let path = request.path ?? ""
        let end = path.firstIndex { $0 == "?" || $0 == "#" } ?? path.endIndex
        return "\(request.scheme ?? "https")://\(request.authority ?? "")\(path[..<end])"
    }

    /// The origin nonces are kept for: scheme and authority.
    static func origin(of request: HTTPRequest) -> String {
        "\(request.scheme?.lowercased() ?? "")://\(request.authority?.lowercased() ?? "")"
    }

    /// What copies share. Both maps are small: a nonce per server, a signer per key.
    private final class State: Sendable {
        static let signerLimit = 8
        let nonces = Mutex<[String: String]>([:])
        let signers = Mutex<[ProofKey: any DPoPSigner]>([:])
    }
}
