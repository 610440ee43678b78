import Foundation
import HTTPTypes

/// Sends one HTTP request and returns the complete response: the seam between the token client (and the
/// networking layer) and the network.
///
/// The library talks HTTP only through this protocol, so tests and apps can supply their own transport — an
/// async-http-client one, or one that records traffic. ``URLSessionTransport`` is the default.
///
/// ## Implementation requirements
///
/// - Return every HTTP response, whatever its status: a 401 or 503 is an answer, not a transport failure. Callers
///   decide what a status means; a transport that throws on 4xx hides the OAuth error body the caller needs.
/// - Throw ``HTTPTransportError`` when no response arrived (``HTTPTransportError/timedOut``,
///   ``HTTPTransportError/networkFailure``) or the body was larger than the transport accepts
///   (``HTTPTransportError/responseTooLarge``). Callers treat these as transient, so tokens are never discarded
///   because the network was down.
/// - Stop promptly and throw `CancellationError` when the calling task is cancelled, so a cancelled caller is not
///   kept waiting for a slow server.
/// - Never forward an `Authorization` header to another origin when following a redirect: the header holds a
///   bearer token or client credentials.
/// - Never log request or response bodies or `Authorization` headers: they carry secrets.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with an optional body and returns the response head and the whole response body.
    ///
    /// - Parameters:
    ///   - request: The method, URL (scheme, authority, path) and header fields to send.
    ///   - body: The request body, or `nil` for none.
    /// - Returns: The response head and its body, complete.
    /// - Throws: ``HTTPTransportError`` when no usable response arrived; `CancellationError` when cancelled.
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data)
}
