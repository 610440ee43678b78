import Foundation
import HTTPTypes
import JWTKit
import Logging
import TokenAuth

/// The issuer's key set: fetched through ``JWKSCache``, from `https` (or loopback) only, without redirects.
extension IDTokenVerifier {
    func currentKeys() async throws -> JWKSCache.Keys {
        try await cache.keys(now: wallClock(), maximumAge: Self.maximumKeyAge, fetch: fetcher)
    }

    /// The fetch the cache runs, capturing only sendable values.
    var fetcher: @Sendable () async throws -> JWKSCache.Keys {
        let (jwksURI, transport, wallClock, logger) = (jwksURI, transport, wallClock, logger)
        return { try await Self.fetchKeys(from: jwksURI, transport: transport, wallClock: wallClock, logger: logger) }
    }

    private static func fetchKeys(
        from url: URL, transport: any HTTPTransport, wallClock: WallClock, logger: Logger
    ) async throws -> JWKSCache.Keys {
        guard url.canCarryCredentials else {
            throw SignInError.jwksMisconfigured("\(url.absoluteString) is not https (http is allowed only on loopback)")
        }
        let fetchedAt = wallClock()
        logger.debug("fetching the issuer's keys", metadata: ["url": "\(url.absoluteString)"])
        let set = try await fetchDocument(
            LenientKeySet.self, with: HTTPRequest(method: .get, url: url, headerFields: [.accept: "application/json"]),
            transport: transport,
            failures: DocumentFailures(
                source: url.absoluteString, refusal: "has no key set", unreadable: "is not a JWK Set",
                unavailable: SignInError.jwksUnavailable, unusable: SignInError.jwksMisconfigured))
        var keys: [String: JWK] = [:]
        var verifiers: [String: JWTKeyCollection] = [:]
        for (index, key) in set.keys.enumerated() {
            var jwk = key
            let kid = jwk.keyIdentifier?.string ?? "#\(index)"
            jwk.keyIdentifier = JWKIdentifier(string: kid)
            guard keys[kid] == nil else { continue }
            // A key published with its private part (`d`) is left out: anyone who read the set could sign with it,
            // and jwt-kit would verify with the key `d` makes, whatever `x` and `y` say.
            guard jwk.privateExponent == nil else {
                logger.debug("skipping a key published with its private part", metadata: ["kid": "\(SignInError.clean(kid))"])
                continue
            }
            do {
                let verifier = JWTKeyCollection()
                try await verifier.add(jwk: jwk)
                keys[kid] = jwk
                verifiers[kid] = verifier
            } catch {
                // A key jwt-kit cannot use (an encryption key, another curve) is left out; the others still work.
                logger.debug("skipping an unusable key", metadata: ["kid": "\(SignInError.clean(kid))"])
            }
        }
        guard !keys.isEmpty else {
            throw SignInError.jwksMisconfigured("\(url.absoluteString) has no usable signing key")
        }
        return JWKSCache.Keys(verifiers: verifiers, keys: keys, fetchedAt: fetchedAt)
    }
}

/// A JWK Set whose keys jwt-kit cannot read (another key type, an unknown algorithm) are left out rather than
/// making the whole set unreadable.
private struct LenientKeySet: Decodable {
    var keys: [JWK]

    private enum CodingKeys: String, CodingKey { case keys }

    private struct MaybeKey: Decodable {
        var key: JWK?
        init(from decoder: any Decoder) throws { key = try? JWK(from: decoder) }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        keys = try container.decode([MaybeKey].self, forKey: .keys).compactMap(\.key)
    }
}
