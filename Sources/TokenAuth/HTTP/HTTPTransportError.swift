import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why an ``HTTPTransport`` produced no usable response.
///
/// Compare with the static members, for example `error == .timedOut`; equality looks only at the kind of
/// failure, not at the details. Descriptions never contain URLs' queries, headers or bodies.
public struct HTTPTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
        case timedOut
        case networkFailure
        case responseTooLarge
        case invalidRequest
        case invalidResponse
    }

    /// The kind of failure (see ``ErrorCode``).
    public var code: Code { Code(kind.rawValue) }

    /// The kind of a ``HTTPTransportError``.
    public typealias Code = ErrorCode<HTTPTransportError>

    private let kind: Kind
    /// The underlying `URLError` code, when the failure came from URLSession.
    public let urlErrorCode: URLError.Code?
    /// The body-size limit that was exceeded, for ``responseTooLarge``.
    public let limit: Int?
    private let detail: String?

    private init(_ kind: Kind, urlErrorCode: URLError.Code? = nil, limit: Int? = nil, detail: String? = nil) {
        self.kind = kind
        self.urlErrorCode = urlErrorCode
        self.limit = limit
        self.detail = detail
    }

    /// The server did not answer in time.
    public static let timedOut = HTTPTransportError(.timedOut)
    /// The request could not be delivered or the connection failed: no network, DNS failure, refused or lost
    /// connection, TLS failure.
    public static let networkFailure = HTTPTransportError(.networkFailure)
    /// The response body was larger than the transport accepts.
    public static let responseTooLarge = HTTPTransportError(.responseTooLarge)
    /// The request could not be expressed for the transport, for example because it has no absolute URL.
    public static let invalidRequest = HTTPTransportError(.invalidRequest)
    /// The response was not an HTTP response that can be represented.
    public static let invalidResponse = HTTPTransportError(.invalidResponse)

    /// A ``responseTooLarge`` error naming the limit.
    static func responseTooLarge(limit: Int) -> HTTPTransportError {
        HTTPTransportError(.responseTooLarge, limit: limit)
    }

    /// An ``invalidRequest`` error explaining what is wrong.
    static func invalidRequest(_ detail: String) -> HTTPTransportError {
        HTTPTransportError(.invalidRequest, detail: detail)
    }

    /// Classifies a URLSession failure as a timeout or a network failure.
    init(urlError: URLError) {
        switch urlError.code {
        case .timedOut:
            self.init(.timedOut, urlErrorCode: urlError.code)
        case .unsupportedURL, .badURL:
            self.init(.invalidRequest, urlErrorCode: urlError.code)
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            self.init(.invalidResponse, urlErrorCode: urlError.code)
        default:
            self.init(.networkFailure, urlErrorCode: urlError.code)
        }
    }

    /// Whether the server did not answer in time.
    public var isTimeout: Bool { kind == .timedOut }

    /// Whether the failure was in reaching the server at all: connection, DNS, TLS or a dropped connection.
    public var isNetworkFailure: Bool { kind == .networkFailure }

    /// Two errors are equal when they are the same kind of failure.
    public static func == (lhs: HTTPTransportError, rhs: HTTPTransportError) -> Bool {
        lhs.kind == rhs.kind
    }

    /// What to do about it.
    public var fix: String {
        switch kind {
        case .timedOut: "Check the network connection or raise the timeout; the request can be retried."
        case .networkFailure: "Check the network connection, the host name and any proxy; the request can be retried."
        case .responseTooLarge: "Check the URL; raise the limit only if such large bodies are expected."
        case .invalidRequest: "Send an absolute http or https URL, with the body as Data."
        case .invalidResponse: "Check that the URL points at an HTTP server."
        }
    }

    /// What happened and what to do about it, written for a person.
    public var description: String {
        let cause = urlErrorCode.map { " (URLError \($0.rawValue))" } ?? ""
        switch kind {
        case .timedOut:
            return "The server did not answer in time\(cause). Check the network connection or raise the timeout; "
                + "the request can be retried."
        case .networkFailure:
            return "The server could not be reached\(cause). Check the network connection, the host name and any "
                + "proxy; the request can be retried."
        case .responseTooLarge:
            let size = limit.map { " of \($0) bytes" } ?? ""
            return "The response body exceeded the limit\(size) and was discarded. The URL probably points at the "
                + "wrong resource; raise the limit only if such large bodies are expected."
        case .invalidRequest:
            return "The request cannot be sent\(cause): \(detail ?? "it needs an absolute http or https URL")."
        case .invalidResponse:
            return "The server's answer is not a valid HTTP response\(cause). Check that the URL points at an "
                + "HTTP server."
        }
    }
}

extension ErrorCode where Domain == HTTPTransportError {
    /// The server did not answer in time.
    public static let timedOut = Self("timedOut")
    /// The server could not be reached, or the connection failed.
    public static let networkFailure = Self("networkFailure")
    /// The response body exceeded the transport's limit.
    public static let responseTooLarge = Self("responseTooLarge")
    /// The request cannot be sent as it is.
    public static let invalidRequest = Self("invalidRequest")
    /// The answer is not a valid HTTP response.
    public static let invalidResponse = Self("invalidResponse")
}
