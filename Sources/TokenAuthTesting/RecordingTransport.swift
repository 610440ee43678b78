import Foundation
import HTTPTypes
import Synchronization
import TokenAuth

/// A transport that records every request and passes it on to another transport, e.g. the real
/// ``URLSessionTransport`` talking to a local test server: the test sees exactly what left the app.
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
    private let log = Mutex<[Exchange]>([])

    /// Records what is sent through `next`.
    public init(passingTo next: any HTTPTransport) {
        self.next = next
    }

    /// Every request sent so far, in order of sending.
    public var exchanges: [Exchange] { log.withLock { $0 } }

    /// How many requests were sent.
    public var sendCount: Int { log.withLock { $0.count } }

    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        try await send(request, body: body, redirects: .follow)
    }

    /// Records the request and passes it on to the next transport with the same redirect policy.
    public func send(_ request: HTTPRequest, body: Data?, redirects: HTTPRedirectPolicy) async throws -> (HTTPResponse, Data) {
        do {
            let (response, data) = try await next.send(request, body: body, redirects: redirects)
            log.withLock { $0.append(Exchange(request: request, body: body, response: response, redirects: redirects)) }
            return (response, data)
        } catch {
            log.withLock { $0.append(Exchange(request: request, body: body, response: nil, redirects: redirects)) }
            throw error
        }
    }
}
