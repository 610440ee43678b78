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
        let request = HTTPRequest(method: .get, url: url, headerFields: [.accept: "application/json"])
        let (response, body) = try await send(
            request, transport: transport,
            tooLarge: .jwksMisconfigured("\(url.absoluteString) answers with more than \(maximumDocumentSize / 1024) KiB")
        ) { SignInError.jwksUnavailable(statusCode: $0, $1) }
        let status = response.status.code
        switch status {
        case 200...299: break
        case 408, 429, 500...599:
            throw SignInError.jwksUnavailable(statusCode: status, "\(url.absoluteString) is not answering normally")
        case 300...399:
            throw SignInError.jwksMisconfigured(statusCode: status, "\(url.absoluteString) redirects; redirects are not followed")
        default:
            throw SignInError.jwksMisconfigured(statusCode: status, "\(url.absoluteString) has no key set")
        }
        guard body.count <= maximumDocumentSize else {
            throw SignInError.jwksMisconfigured("\(url.absoluteString) answers with more than \(maximumDocumentSize / 1024) KiB")
        }
        let set: LenientKeySet
        do {
            set = try JSONDecoder().decode(LenientKeySet.self, from: body)
        } catch {
            throw SignInError.jwksMisconfigured("\(url.absoluteString) is not a JWK Set")
        }
        let collection = JWTKeyCollection()
        var keys: [String: JWK] = [:]
        for (index, key) in set.keys.enumerated() {
            var jwk = key
            let kid = jwk.keyIdentifier?.string ?? "#\(index)"
            jwk.keyIdentifier = JWKIdentifier(string: kid)
            guard keys[kid] == nil else { continue }
            do {
                try await collection.add(jwk: jwk)
                keys[kid] = jwk
            } catch {
                // A key jwt-kit cannot use (an encryption key, another curve) is left out; the others still work.
                logger.debug("skipping an unusable key", metadata: ["kid": "\(SignInError.clean(kid))"])
            }
        }
        guard !keys.isEmpty else {
            throw SignInError.jwksMisconfigured("\(url.absoluteString) has no usable signing key")
        }
        return JWKSCache.Keys(collection: collection, keys: keys, fetchedAt: fetchedAt)
    }

    /// One request without following redirects, with transport failures turned into `failure` (transient).
    static func send(
        _ request: HTTPRequest, transport: any HTTPTransport, tooLarge: SignInError,
        failure: (Int?, String) -> SignInError
    ) async throws -> (HTTPResponse, Data) {
        let host = request.authority ?? "the server"
        do {
            return try await transport.send(request, body: nil, redirects: .refuse)
        } catch let error as TokenAuthError {
            if error.code == .responseTooLarge { throw tooLarge }
            throw failure(nil, "\(host): \(error.code == .timedOut ? "no answer in time" : "the connection failed")")
        } catch let error as CancellationError {
            throw error
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw failure(nil, "\(host): \(type(of: error))")
        }
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
