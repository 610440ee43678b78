import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The session delegate of ``URLSessionTransport``: keeps credentials on their origin and leaves authentication
/// to the caller.
///
/// - **Redirects.** URLSession copies every header of the original request into a redirected one,
///   `Authorization` included, even to another host (seen with FoundationNetworking on Linux). A bearer token or
///   client secret would reach whoever the `Location` header names. The delegate compares the redirect target
///   with the origin (scheme, host and port) of the task's original request and drops `Authorization` and
///   `Proxy-Authorization` when they differ. With ``HTTPRedirectPolicy/refuse`` no redirect is followed: the 3xx
///   response completes the task.
/// - **HTTP authentication challenges.** The transport never answers a `401` with stored credentials: callers
///   put their own `Authorization` header on requests and need to see the `401` itself. On Linux, letting
///   FoundationNetworking handle a `Basic` challenge hangs the task, so the challenge is cancelled and
///   the transport returns the `401` response that ``Transfer`` kept. On Apple platforms every challenge gets the
///   system's default handling.
/// - **Each task's data.** The session's tasks have no completion handler: the delegate hands each task's
///   response head, body and completion to the ``Transfer`` routed to it.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// What the session's tasks do with redirects.
    let redirects: HTTPRedirectPolicy
    /// The transfer of each running task, by task identifier.
    private let transfers = Mutex<[Int: Transfer]>([:])

    init(redirects: HTTPRedirectPolicy) {
        self.redirects = redirects
    }

    /// Hands `task`'s events to `transfer` until the task completes.
    func route(_ task: URLSessionTask, to transfer: Transfer) {
        transfers.withLock { $0[task.taskIdentifier] = transfer }
    }

    /// Stops routing `task`'s events: for a task that was never resumed.
    func forget(_ task: URLSessionTask) {
        _ = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    private func transfer(of task: URLSessionTask) -> Transfer? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let proceed = transfer(of: dataTask)?.received(response) ?? true
        completionHandler(proceed ? .allow : .cancel)
        // FoundationNetworking ignores the disposition, so the task is cancelled here as well.
        if !proceed { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let proceed = transfer(of: dataTask)?.received(data) ?? true
        if !proceed { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        transfer?.completed(with: error)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        guard redirects != .refuse else { return completionHandler(nil) }
        completionHandler(Self.redirect(request, from: task.originalRequest?.url))
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        // FoundationNetworking raises only HTTP authentication challenges (no server trust or client
        // certificates), and default handling of those hangs the task.
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        // Apple's Foundation delivers the 401 by itself when there is no stored credential, and server-trust and
        // client-certificate challenges need the system's handling.
        completionHandler(.performDefaultHandling, nil)
        #endif
    }

    /// The request to follow: `request` itself, or a copy without credentials when it leaves `originalURL`'s
    /// origin.
    static func redirect(_ request: URLRequest, from originalURL: URL?) -> URLRequest {
        guard let target = request.url, let originalURL, Origin(target) == Origin(originalURL) else {
            var stripped = request
            stripped.setValue(nil, forHTTPHeaderField: "Authorization")
            stripped.setValue(nil, forHTTPHeaderField: "Proxy-Authorization")
            return stripped
        }
        return request
    }
}

/// The origin of a URL (RFC 6454): scheme, host and port, with default ports made explicit.
struct Origin: Equatable {
    var scheme: String
    var host: String
    var port: Int?

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        switch (url.port, scheme) {
        case (let port?, _): self.port = port
        case (nil, "http"): self.port = 80
        case (nil, "https"): self.port = 443
        default: self.port = nil
        }
    }
}
