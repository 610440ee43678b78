import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import HTTPTypesFoundation
import Logging
import Synchronization
import TokenAuth

/// The default `HTTPTransport`: URLSession (FoundationNetworking on Linux).
///
/// Each transport owns a URLSession per `HTTPRedirectPolicy`, made from an ephemeral configuration so that
/// nothing — cookies, cached token responses — is written to disk. Copies of a transport share those sessions;
/// they are invalidated when the last copy goes away. The transport
///
/// - caps response bodies at ``maximumResponseBodySize``, cancelling the transfer as soon as the cap is passed;
/// - maps `URLError`s to `TokenAuthError`, telling timeouts and network failures apart;
/// - throws `CancellationError` promptly when the calling task is cancelled, abandoning the request;
/// - follows redirects, but drops `Authorization` when a redirect leaves the original origin; with
///   `HTTPRedirectPolicy.refuse` it follows none and returns the 3xx response;
/// - never answers HTTP authentication challenges itself: a `401` is returned to the caller as it came (on Linux
///   also one with a `Basic` challenge, which FoundationNetworking cannot deliver on its own).
public struct URLSessionHTTPTransport: HTTPTransport {
    /// The default cap on response bodies: 10 MiB.
    public static let defaultMaximumResponseBodySize = 10 * 1024 * 1024

    /// The largest response body accepted, in bytes. Larger ones throw `TokenAuthError.Code.responseTooLarge`.
    public let maximumResponseBodySize: Int
    /// How long to wait for the server before throwing `TokenAuthError.Code.timedOut`: the time allowed between
    /// received bytes, as URLSession's `timeoutIntervalForRequest`.
    public let timeout: Duration

    private let owner: SessionOwner
    private let logger: Logger

    /// Creates a transport with its own URLSessions, made from an ephemeral configuration on the first request.
    ///
    /// - Parameters:
    ///   - maximumResponseBodySize: The largest response body accepted, in bytes.
    ///   - timeout: How long to wait for the server before failing with `TokenAuthError.Code.timedOut`.
    ///   - logger: Where each request is logged: method and URL without its query at trace level, then status,
    ///     body size and duration (or the error) at debug level. Never a header or a body.
    public init(
        maximumResponseBodySize: Int = URLSessionHTTPTransport.defaultMaximumResponseBodySize,
        timeout: Duration = .seconds(30),
        logger: Logger = Logger(label: "TokenAuth.URLSessionHTTPTransport")
    ) {
        self.init(maximumResponseBodySize: maximumResponseBodySize, timeout: timeout, logger: logger, owner: SessionOwner(timeout: timeout))
    }

    /// Creates a transport with its own URLSessions, made from a copy of `configuration`.
    ///
    /// - Parameters:
    ///   - maximumResponseBodySize: The largest response body accepted, in bytes.
    ///   - timeout: How long to wait for the server before failing with `TokenAuthError.Code.timedOut`.
    ///   - configuration: The session configuration to start from. The transport uses a copy whose request timeout
    ///     is `timeout`; the object passed in is not changed.
    ///   - logger: Where each request is logged: method and URL without its query at trace level, then status,
    ///     body size and duration (or the error) at debug level. Never a header or a body.
    public init(
        maximumResponseBodySize: Int = URLSessionHTTPTransport.defaultMaximumResponseBodySize,
        timeout: Duration = .seconds(30),
        configuration: URLSessionConfiguration,
        logger: Logger = Logger(label: "TokenAuth.URLSessionHTTPTransport")
    ) {
        let owner = SessionOwner(timeout: timeout, configuration: (configuration.copy() as! URLSessionConfiguration))
        self.init(maximumResponseBodySize: maximumResponseBodySize, timeout: timeout, logger: logger, owner: owner)
    }

    private init(maximumResponseBodySize: Int, timeout: Duration, logger: Logger, owner: SessionOwner) {
        self.logger = logger
        self.maximumResponseBodySize = maximumResponseBodySize
        self.timeout = timeout
        self.owner = owner
    }

    /// Sends `request` through the transport's URLSession and returns the complete response, following redirects.
    ///
    /// - Throws: `TokenAuthError` for a timeout, a network failure, an oversized body or a request without
    ///   an absolute URL; `CancellationError` when the calling task is cancelled.
    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        try await send(request, body: body, redirects: .follow)
    }

    /// Sends `request` through the transport's URLSession and returns the complete response; with
    /// `HTTPRedirectPolicy.refuse`, a 3xx response is returned as it came and nothing is sent to its `Location`.
    ///
    /// - Throws: `TokenAuthError` for a timeout, a network failure, an oversized body or a request without
    ///   an absolute URL; `CancellationError` when the calling task is cancelled.
    public func send(_ request: HTTPRequest, body: Data?, redirects: HTTPRedirectPolicy) async throws -> (HTTPResponse, Data) {
        let outcome = { (answer: (HTTPResponse, Data)) -> Logger.Metadata in
            ["status": "\(answer.0.status.code)", "bytes": "\(answer.1.count)"]
        }
        return try await logger.timed("HTTP request", ["request": "\(LogRedaction.request(request))"], outcome: outcome) {
            try await transfer(request, body: body, redirects: redirects)
        }
    }

    private func transfer(_ request: HTTPRequest, body: Data?, redirects: HTTPRedirectPolicy) async throws -> (HTTPResponse, Data) {
        guard var urlRequest = URLRequest(httpRequest: request) else {
            throw TokenAuthError.invalidRequest("it needs an absolute http or https URL")
        }
        urlRequest.httpBody = body
        urlRequest.timeoutInterval = timeout.timeInterval
        try Task.checkCancellation()

        let collector = ResponseCollector(limit: maximumResponseBodySize)
        var data: Data
        var urlResponse: URLResponse
        do {
            // Not left to URLSession to give up on a cancelled transfer: FoundationNetworking may wait for the answer,
            // and cancelling the task that runs data(for:delegate:) can deadlock (see abandoningOnCancellation).
            (data, urlResponse) = try await abandoningOnCancellation(onAbandon: collector.cancelTransfer) {
                [session = owner.session(redirects), urlRequest] in
                try await session.data(for: urlRequest, delegate: collector)
            }
        } catch let error as URLError {
            if collector.exceeded {
                throw TokenAuthError.responseTooLarge(limit: maximumResponseBodySize)
            }
            if error.code == .cancelled, Task.isCancelled {
                throw CancellationError()
            }
            // A 401 whose authentication challenge SessionDelegate cancelled: the response itself is the answer.
            guard error.code == .cancelled, let challenged = collector.received.response, challenged.statusCode == 401 else {
                throw TokenAuthError(urlError: error)
            }
            (data, urlResponse) = (collector.received.body, challenged)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw TokenAuthError.networkFailure
        }
        guard data.count <= maximumResponseBodySize else {
            throw TokenAuthError.responseTooLarge(limit: maximumResponseBodySize)
        }
        guard let httpURLResponse = urlResponse as? HTTPURLResponse, let response = httpURLResponse.httpResponse else {
            throw TokenAuthError.invalidResponse
        }
        return (response, data)
    }
}

/// Holds a transport's URLSessions and invalidates them when the last copy of the transport is gone, so sessions
/// (and their delegates, which they retain) do not leak.
///
/// There is one session per `HTTPRedirectPolicy`, because only the session's delegate can decide about a
/// redirect on Linux: FoundationNetworking never asks the delegate given to `data(for:delegate:)`.
///
/// Each session is made on its first request, not with the transport: on Linux a URLSession starts libcurl
/// (`curl_global_init`, which sets up TLS) and a dispatch source of its own, and a process that never sends a
/// request — `tokenctl token` over a valid token — should not pay for that (issue 14). Neither should it pay for
/// an ephemeral configuration, which sets up a cookie store and a cache: without one passed in, it is made with
/// the first session too.
private final class SessionOwner: Sendable {
    private struct Sessions {
        var configuration: URLSessionConfiguration?
        var following: URLSession?
        var refusing: URLSession?
    }

    private let timeout: Duration
    private let sessions: Mutex<Sessions>

    init(timeout: Duration, configuration: URLSessionConfiguration? = nil) {
        self.timeout = timeout
        sessions = Mutex(Sessions(configuration: configuration))
    }

    /// The session whose delegate applies `redirects`, made now if this is its first request.
    func session(_ redirects: HTTPRedirectPolicy) -> URLSession {
        sessions.withLock { sessions in
            let configuration = sessions.configuration ?? .ephemeral
            configuration.timeoutIntervalForRequest = timeout.timeInterval
            sessions.configuration = configuration
            if redirects == .refuse {
                if let refusing = sessions.refusing { return refusing }
                let made = Self.make(configuration, redirects)
                sessions.refusing = made
                return made
            }
            if let following = sessions.following { return following }
            let made = Self.make(configuration, redirects)
            sessions.following = made
            return made
        }
    }

    private static func make(_ configuration: URLSessionConfiguration, _ redirects: HTTPRedirectPolicy) -> URLSession {
        URLSession(configuration: configuration, delegate: SessionDelegate(redirects: redirects), delegateQueue: nil)
    }

    deinit {
        sessions.withLock { sessions in
            sessions.following?.finishTasksAndInvalidate()
            sessions.refusing?.finishTasksAndInvalidate()
        }
    }
}
