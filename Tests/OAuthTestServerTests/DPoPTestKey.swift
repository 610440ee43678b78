import Crypto
import Foundation
import HTTPTypes
import OAuthTestServer
import OAuthTestSupport
import TokenAuthURLSession

/// A client's DPoP key for the server's tests, and the proofs (RFC 9449 §4.2) it signs: compact JWSs written here
/// with swift-crypto, independently of the server's parser, and spoilt on demand.
struct DPoPTestKey: Sendable {
    let privateKey: P256.Signing.PrivateKey

    /// A new random key, or the one of `rawScalar` (32 bytes, big-endian).
    init(rawScalar: Data? = nil) throws {
        privateKey = try rawScalar.map { try P256.Signing.PrivateKey(rawRepresentation: $0) } ?? P256.Signing.PrivateKey()
    }

    /// The public key's coordinates, base64url.
    var x: String { Self.base64URL(privateKey.publicKey.rawRepresentation.prefix(32)) }
    var y: String { Self.base64URL(privateKey.publicKey.rawRepresentation.suffix(32)) }

    /// The public JWK the proofs carry.
    var jwk: [String: String] { ["kty": "EC", "crv": "P-256", "x": x, "y": y] }

    /// The key's RFC 7638 thumbprint, by the server's function (checked against an independent value in its test).
    var thumbprint: String { JWKThumbprint.p256(x: x, y: y) }

    /// A proof for `method` at `url`.
    ///
    /// - Parameters:
    ///   - accessToken: The token whose hash goes into `ath`.
    ///   - ath: An `ath` to send instead of the token's hash.
    ///   - header: Header members added or replacing the right ones (`typ`, `alg`, `jwk`); `NSNull()` removes one.
    ///   - claims: Claims added or replacing the right ones; `NSNull()` removes one.
    ///   - signer: The key that signs, when it is not this one (a proof whose signature does not verify).
    func proof(
        _ method: String = "POST",
        _ url: URL,
        accessToken: String? = nil,
        nonce: String? = nil,
        issuedAt: Date = Date(),
        jti: String = UUID().uuidString,
        header: [String: Any] = [:],
        claims: [String: Any] = [:],
        signer: DPoPTestKey? = nil
    ) throws -> String {
        var head: [String: Any] = ["typ": "dpop+jwt", "alg": "ES256", "jwk": jwk]
        var body: [String: Any] = [
            "htm": method, "htu": url.absoluteString, "iat": Int(issuedAt.timeIntervalSince1970), "jti": jti,
        ]
        if let accessToken { body["ath"] = Self.base64URL(Data(SHA256.hash(data: Data(accessToken.utf8)))) }
        if let nonce { body["nonce"] = nonce }
        for (name, value) in header { head[name] = value is NSNull ? nil : value }
        for (name, value) in claims { body[name] = value is NSNull ? nil : value }
        let input = Self.base64URL(try Self.json(head)) + "." + Self.base64URL(try Self.json(body))
        let signature = try (signer ?? self).privateKey.signature(for: Data(input.utf8))
        return input + "." + Self.base64URL(signature.rawRepresentation)
    }

    static func json(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A server answer as the DPoP tests read it.
typealias Answer = (status: Int, headers: HTTPFields, json: [String: Any])

/// Posts `form` to the server's token endpoint, with `proof` in a `DPoP` header when given.
func tokenRequest(_ server: OAuthTestServer, _ form: [String: String], proof: String?) async throws -> Answer {
    var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
    if let proof { headers[HTTPField.Name("DPoP")!] = proof }
    let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    let body = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: unreserved)!)" }
        .joined(separator: "&")
    return try await call(.post, server.tokenEndpoint, headers: headers, body: Data(body.utf8))
}

/// The password grant's form for alice, of the public client `test-client` unless told.
func passwordForm(clientID: String = "test-client") -> [String: String] {
    ["grant_type": "password", "username": "alice", "password": "wonderland", "client_id": clientID]
}

/// Calls the resource at `url` with `Authorization: SCHEME token` and `proof` in a `DPoP` header when given.
func resourceRequest(
    _ url: URL, method: HTTPRequest.Method = .get, scheme: String = "DPoP", token: String, proof: String?
) async throws -> Answer {
    var headers: HTTPFields = [.authorization: "\(scheme) \(token)"]
    if let proof { headers[HTTPField.Name("DPoP")!] = proof }
    return try await call(method, url, headers: headers)
}

/// A bound grant for alice with `key`, which must succeed.
func boundTokens(_ server: OAuthTestServer, key: DPoPTestKey) async throws -> (access: String, refresh: String) {
    let answer = try await tokenRequest(server, passwordForm(), proof: try key.proof("POST", server.tokenEndpoint))
    guard answer.status == 200, let access = answer.json["access_token"] as? String,
        let refresh = answer.json["refresh_token"] as? String
    else { throw UnexpectedAnswer(answer: "\(answer.status) \(answer.json)") }
    return (access, refresh)
}

/// A token answer that was not the expected success.
struct UnexpectedAnswer: Error {
    var answer: String
}

extension HTTPFields {
    /// The `DPoP-Nonce` header's value.
    var dpopNonce: String? { self[HTTPField.Name("DPoP-Nonce")!] }
}
