import Foundation
import HTTPTypes
import Synchronization
import TokenAuth

/// A transport that records every request and passes it on to another transport, e.g. the real
/// ``URLSessionHTTPTransport`` talking to a local test server: the test sees exactly what left the app.
public final class RecordingTransport: HTTPTransport {
    /// One request as it was handed to the transport.
    public struct Exchange: Sendable {
        /// The request head, `Authorization` included.
        public let request: HTTPRequest
        /// The request body.
        public let body: Data?
        /// The response head, or `nil` when the transport threw.
        public let response: HTTPResponse?
        /// What the sender asked the transport to do with a redirect.
        public let redirects: HTTPRedirectPolicy
    }

    private let next: any HTTPTransport
    private let log = Mutex<(handed: [HTTPRequest], done: [Exchange])>(([], []))

    /// Records what is sent through `next`.
    public init(passingTo next: any HTTPTransport) {
        self.next = next
    }

    /// Every request with its outcome, in the order the transport finished them.
    public var exchanges: [Exchange] { log.withLock { $0.done } }

    /// Every request, in the order it was handed to the transport (before any answer): for testing ordering.
    public var handedRequests: [HTTPRequest] { log.withLock { $0.handed } }

    /// How many requests were handed to the transport.
    public var sendCount: Int { log.withLock { $0.handed.count } }

    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        try await send(request, body: body, redirects: .follow)
    }

    /// Records the request and passes it on to the next transport with the same redirect policy.
    public func send(_ request: HTTPRequest, body: Data?, redirects: HTTPRedirectPolicy) async throws -> (HTTPResponse, Data) {
        log.withLock { $0.handed.append(request) }
        do {
            let (response, data) = try await next.send(request, body: body, redirects: redirects)
            log.withLock { $0.done.append(Exchange(request: request, body: body, response: response, redirects: redirects)) }
            return (response, data)
        } catch {
            log.withLock { $0.done.append(Exchange(request: request, body: body, response: nil, redirects: redirects)) }
            throw error
        }
    }
}
