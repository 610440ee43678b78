import Foundation
import HTTPTypes
import Synchronization
import TokenAuth

/// A transport that answers every request with one canned response and counts the requests: for testing what
/// happens before or without the network (what a client sends, how it reads an answer).
public final class CannedTransport: HTTPTransport {
    private let status: HTTPResponse.Status
    private let headers: HTTPFields
    private let body: Data
    private let log = Mutex<[(HTTPRequest, Data?)]>([])

    /// Answers every request with `status`, `headers` and `body`.
    public init(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Answers every request with `status`, `headers` and the UTF-8 text `json`.
    public convenience init(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], json: String) {
        self.init(status: status, headers: headers, body: Data(json.utf8))
    }

    /// How many requests were sent.
    public var sendCount: Int { log.withLock { $0.count } }

    /// The body of the last request, as text.
    public var lastBody: String? {
        log.withLock { $0.last?.1.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// The last request's head.
    public var lastRequest: HTTPRequest? { log.withLock { $0.last?.0 } }

    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        log.withLock { $0.append((request, body)) }
        return (HTTPResponse(status: status, headerFields: headers), self.body)
    }
}
