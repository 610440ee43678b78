import Foundation
import HTTPTypes
import TokenAuth

/// Finds an authorization server's metadata from its issuer identifier (RFC 8414 §3, OpenID Connect Discovery 1.0
/// §4), so an app needs only the issuer URL and its client id.
///
/// ```swift
/// let metadata = try await Discovery(transport: transport).metadata(forIssuer: issuer)
/// let device = try DeviceAuthorization(metadata: metadata, clientID: "my-desktop-app", transport: transport)
/// ```
///
/// The well-known URLs are tried in this order, and the first that answers with a document decides:
///
/// 1. `/.well-known/oauth-authorization-server` inserted between the host and the issuer's path (RFC 8414);
/// 2. `/.well-known/openid-configuration` inserted the same way (RFC 8414 §5);
/// 3. `/.well-known/openid-configuration` appended to the issuer's path (OpenID Connect Discovery).
///
/// For an issuer without a path, 2 and 3 are the same URL and it is asked once. A 4xx answer (other than 408 and
/// 429) means "not here": the next URL is tried. A 2xx answer is the document: it must be a JSON object whose
/// `issuer` is exactly the issuer asked for (RFC 8414 §3.3) and which names a `token_endpoint`; every endpoint it
/// names must be `https` (or `http` on a loopback host).
///
/// Rules that protect the app:
/// - The issuer must be `https`, or `http` on a loopback host; anything else is refused before any request.
/// - Redirects are not followed: requests go out with `HTTPRedirectPolicy.refuse`, and a 3xx answer is
///   ``SignInError/Code/redirected``, naming the `Location`. (A custom transport that ignores the policy and follows
///   redirects hides them; then the issuer check is what refuses a document from elsewhere.)
/// - Each document is at most ``AuthorizationServerMetadata/maximumSize`` bytes, and the whole lookup takes at most
///   ``timeLimit`` by the injected clock; past it, the lookup throws ``SignInError/Code/unavailable``.
public struct Discovery: Sendable {
    /// The longest the whole lookup, every URL tried included, may take.
    public let timeLimit: Duration
    private let transport: any HTTPTransport
    private let clock: any Clock<Duration>

    /// Creates a discovery client.
    ///
    /// - Parameters:
    ///   - transport: How requests are sent: the app's transport, as for everything else. Whatever it accepts, a
    ///     document larger than ``AuthorizationServerMetadata/maximumSize`` bytes is refused.
    ///   - timeLimit: The longest the whole lookup may take; 30 s by default.
    ///   - clock: The clock that measures ``timeLimit``.
    public init(
        transport: any HTTPTransport,
        timeLimit: Duration = .seconds(30),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.transport = transport
        self.timeLimit = timeLimit
        self.clock = clock
    }

    /// Fetches and checks the metadata of `issuer`.
    ///
    /// - Parameter issuer: The issuer identifier, exactly as the provider documents it (the document's `issuer`
    ///   must be identical to it, character for character).
    /// - Throws: ``SignInError``, or `CancellationError` when the calling task is cancelled.
    public func metadata(forIssuer issuer: URL) async throws -> AuthorizationServerMetadata {
        let candidates = try Self.metadataURLs(forIssuer: issuer)
        return try await withTimeLimit {
            try await firstDocument(at: candidates, issuer: issuer.absoluteString)
        }
    }

    /// The well-known URLs for `issuer`, in the order they are tried.
    ///
    /// - Throws: ``SignInError/Code/insecureIssuer`` or ``SignInError/Code/invalidIssuer``.
    public static func metadataURLs(forIssuer issuer: URL) throws(SignInError) -> [URL] {
        guard issuer.canCarryCredentials else { throw .insecureIssuer(issuer) }
        guard var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) else {
            throw .invalidIssuer(issuer, "cannot be read")
        }
        guard components.percentEncodedQuery == nil else { throw .invalidIssuer(issuer, "has a query") }
        guard components.percentEncodedFragment == nil else { throw .invalidIssuer(issuer, "has a fragment") }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }

        var urls: [URL] = []
        for candidate in [
            "/.well-known/oauth-authorization-server" + path,
            "/.well-known/openid-configuration" + path,
            path + "/.well-known/openid-configuration",
        ] {
            components.percentEncodedPath = candidate
            guard let url = components.url else { throw .invalidIssuer(issuer, "cannot be extended with a path") }
            if !urls.contains(url) { urls.append(url) }
        }
        return urls
    }

    /// Asks each URL in turn until one answers with a document.
    private func firstDocument(at candidates: [URL], issuer: String) async throws -> AuthorizationServerMetadata {
        var lastStatus: Int?
        for url in candidates {
            let (response, body) = try await get(url)
            let status = response.status.code
            switch status {
            case 200...299:
                return try AuthorizationServerMetadata.decode(body, from: url, expectedIssuer: issuer)
            case 300...399:
                throw SignInError.redirected(from: url, status: status, location: response.headerFields[.location])
            case 408, 429, 500...599:
                throw SignInError.metadataUnavailable(url, statusCode: status, cause: "the server is not answering normally")
            default:
                lastStatus = status
            }
        }
        throw SignInError.metadataNotFound(tried: candidates, lastStatus: lastStatus)
    }

    /// One GET, with transport failures turned into ``SignInError``.
    private func get(_ url: URL) async throws -> (HTTPResponse, Data) {
        let request = HTTPRequest(method: .get, url: url, headerFields: [.accept: "application/json"])
        do {
            let (response, body) = try await transport.send(request, body: nil, redirects: .refuse)
            if body.count > AuthorizationServerMetadata.maximumSize { throw SignInError.metadataTooLarge(at: url) }
            return (response, body)
        } catch let error as TokenAuthError {
            if error.code == .responseTooLarge { throw SignInError.metadataTooLarge(at: url) }
            let cause = error.code == .timedOut ? "no answer in time" : error.transportCause ?? "the connection failed"
            throw SignInError.metadataUnavailable(url, cause: cause)
        } catch let error as SignInError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw SignInError.metadataUnavailable(url, cause: "\(type(of: error))")
        }
    }

    /// Runs `body`, throwing ``SignInError/Code/unavailable`` when it takes longer than ``timeLimit`` by ``clock``.
    private func withTimeLimit(
        _ body: @escaping @Sendable () async throws -> AuthorizationServerMetadata
    ) async throws -> AuthorizationServerMetadata {
        let (clock, limit) = (self.clock, timeLimit)
        return try await withThrowingTaskGroup(of: AuthorizationServerMetadata?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await clock.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let metadata = first else {
                throw SignInError.metadataUnavailable(nil, cause: "no document within \(limit.components.seconds) s")
            }
            return metadata
        }
    }
}
