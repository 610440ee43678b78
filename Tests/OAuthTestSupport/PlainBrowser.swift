import Foundation
import HTTPTypes
import OAuthTestServer
import Synchronization
import TokenAuth
import TokenAuthSignIn
import TokenAuthURLSession

/// What a browser does with the authorization URL, played by a plain HTTP client: it follows the server's redirect
/// to the loopback listener and keeps the page it was shown.
package final class PlainBrowser: Sendable {
    package init() {}

    package struct Visit: Sendable {
        /// The URL first visited.
        package var url: URL
        package var status: Int
        package var page: String
    }

    private let visits = Mutex<[Visit]>([])
    private let opened = Mutex<[URL]>([])

    /// The URLs the sign-in asked to open.
    package var openedURLs: [URL] { opened.withLock { $0 } }
    /// The pages received, in order.
    package var pages: [Visit] { visits.withLock { $0 } }

    /// Records the URL without visiting it.
    package func record(_ url: URL) {
        opened.withLock { $0.append(url) }
    }

    /// Visits `url`, following redirects, and returns the final status and page.
    ///
    /// Through ``URLSessionHTTPTransport``, never FoundationNetworking's `data(from:)` directly: the sign-in cancels this
    /// visit once its answer is in, and `data(from:)` cancelled while its response arrives can hang for good
    /// (swiftlang/swift-corelibs-foundation#5412; it hung a full test run).
    @discardableResult
    package func visit(_ url: URL) async throws -> Visit {
        let (response, data) = try await URLSessionHTTPTransport(timeout: .seconds(60))
            .send(HTTPRequest(method: .get, url: url), body: nil)
        let visit = Visit(url: url, status: response.status.code, page: String(decoding: data, as: UTF8.self))
        visits.withLock { $0.append(visit) }
        return visit
    }

    /// The "open this URL" hook: records, then visits — to the end, as a browser would: the sign-in cancels its hook
    /// once it has its answer, which arrives as the page is written, and a visit cancelled then would lose the page.
    package func open(_ url: URL) async throws {
        record(url)
        _ = try await Task { try await self.visit(url) }.value
    }
}

extension URL {
    /// The value of the query parameter `name`, decoded as a form value.
    package func queryValue(_ name: String) -> String? {
        URLComponents(url: self, resolvingAgainstBaseURL: false)?.queryItems?
            .first { $0.name == name }?.value?.replacingOccurrences(of: "+", with: " ")
    }

    /// This URL with the query parameter `name` set to `value`.
    package func settingQuery(_ name: String, to value: String) -> URL {
        var components = URLComponents(url: self, resolvingAgainstBaseURL: false)!
        var items = (components.queryItems ?? []).filter { $0.name != name }
        items.append(URLQueryItem(name: name, value: value))
        components.queryItems = items
        return components.url!
    }
}

extension OAuthTestServer {
    /// The metadata as discovery finds it, for a browser sign-in.
    package func discoveredMetadata() async throws -> AuthorizationServerMetadata {
        try await Discovery(transport: URLSessionHTTPTransport(timeout: .seconds(60))).metadata(forIssuer: issuer)
    }
}

