#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// Sends one HTTP request and returns the complete response: the seam between the token client (and the
/// networking layer) and the network.
///
/// The library talks HTTP only through this protocol, so tests and apps can supply their own transport — an
/// async-http-client one, or one that records traffic. `URLSessionHTTPTransport`, in the module `TokenAuthURLSession`,
/// sends them with URLSession.
///
/// ## Implementation requirements
///
/// - Return every HTTP response, whatever its status: a 401 or 503 is an answer, not a transport failure. Callers
///   decide what a status means; a transport that throws on 4xx hides the OAuth error body the caller needs.
/// - Throw ``TokenAuthError`` when no response arrived (``TokenAuthError/Code/timedOut``,
///   ``TokenAuthError/Code/networkFailure``) or the body was larger than the transport accepts
///   (``TokenAuthError/Code/responseTooLarge``). Callers treat these as transient, so tokens are never discarded
///   because the network was down.
/// - Stop promptly and throw `CancellationError` when the calling task is cancelled, so a cancelled caller is not
///   kept waiting for a slow server.
/// - Never forward an `Authorization` header to another origin when following a redirect: the header holds a
///   bearer token or client credentials.
/// - Honour ``HTTPRedirectPolicy/refuse`` in ``send(_:body:redirects:)``: return the 3xx response as it came and
///   send nothing to its `Location`. The token and revocation clients ask for it, because their requests carry
///   a client secret or a token in the body, where no header rule can protect them. The default implementation
///   ignores the policy and calls ``send(_:body:)``; a transport that follows redirects by itself must implement
///   it.
/// - Never log request or response bodies or `Authorization` headers: they carry secrets.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with an optional body and returns the response head and the whole response body.
    ///
    /// - Parameters:
    ///   - request: The method, URL (scheme, authority, path) and header fields to send.
    ///   - body: The request body, or `nil` for none.
    /// - Returns: The response head and its body, complete.
    /// - Throws: ``TokenAuthError`` when no usable response arrived; `CancellationError` when cancelled.
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data)

    /// Sends `request` as ``send(_:body:)`` does, following redirects only as `redirects` allows.
    ///
    /// - Parameters:
    ///   - request: The method, URL (scheme, authority, path) and header fields to send.
    ///   - body: The request body, or `nil` for none.
    ///   - redirects: Whether a 3xx answer is followed, or returned as the response.
    /// - Returns: The response head and its body, complete: with ``HTTPRedirectPolicy/refuse``, a 3xx response
    ///   and its `Location` field as the server sent them.
    /// - Throws: ``TokenAuthError`` when no usable response arrived; `CancellationError` when cancelled.
    func send(_ request: HTTPRequest, body: Data?, redirects: HTTPRedirectPolicy) async throws -> (HTTPResponse, Data)
}

extension HTTPTransport {
    /// Calls ``send(_:body:)``, whatever `redirects` says: for transports that never follow redirects themselves.
    public func send(_ request: HTTPRequest, body: Data?, redirects: HTTPRedirectPolicy) async throws -> (HTTPResponse, Data) {
        try await send(request, body: body)
    }
}

/// Whether an ``HTTPTransport`` follows a redirect (a 3xx answer with a `Location`) or returns it as the response.
///
/// Compare with the static members: `policy == .refuse`.
public struct HTTPRedirectPolicy: Sendable, Hashable, CustomStringConvertible {
    private enum Base: String, Sendable, Hashable { case follow, refuse }
    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// Follow redirects, never carrying `Authorization` to another origin: for API requests, whose token is only in
    /// that header.
    public static let follow = HTTPRedirectPolicy(.follow)
    /// Send nothing to the `Location`: return the 3xx response itself. For requests whose body carries secrets
    /// meant for one URL only, such as token and revocation requests.
    public static let refuse = HTTPRedirectPolicy(.refuse)

    /// The policy's name.
    public var description: String { base.rawValue }
}
