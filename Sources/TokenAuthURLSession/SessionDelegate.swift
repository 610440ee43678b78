import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TokenAuth

/// The session delegate of ``URLSessionHTTPTransport``: keeps credentials on their origin and leaves authentication
/// to the caller.
///
/// - **Redirects.** URLSession copies every header of the original request into a redirected one,
///   `Authorization` included, even to another host (seen with FoundationNetworking on Linux). A bearer token or
///   client secret would reach whoever the `Location` header names. The delegate compares the redirect target
///   with the origin (scheme, host and port) of the task's original request and drops `Authorization` and
///   `Proxy-Authorization` when they differ. With `HTTPRedirectPolicy.refuse` no redirect is followed: the 3xx
///   response completes the task.
/// - **HTTP authentication challenges.** The transport never answers a `401` with stored credentials: callers
///   put their own `Authorization` header on requests and need to see the `401` itself. On Linux, letting
///   FoundationNetworking handle a `Basic` challenge hangs the task, so the challenge is cancelled and
///   ``ResponseCollector`` supplies the `401` response. On Apple platforms every challenge gets the system's
///   default handling.
final class SessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    /// What the session's tasks do with redirects.
    let redirects: HTTPRedirectPolicy

    init(redirects: HTTPRedirectPolicy) {
        self.redirects = redirects
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
