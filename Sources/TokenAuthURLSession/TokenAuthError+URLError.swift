#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import TokenAuth

extension TokenAuthError {
    /// A URLSession failure: a timeout, a request that cannot be sent, an answer that is not HTTP, or a network
    /// failure.
    package init(urlError: URLError) {
        let cause = "URLError \(urlError.code.rawValue)"
        switch urlError.code {
        case .timedOut:
            self.init(
                .timedOut, "The server did not answer in time (\(cause)).",
                fix: "Check the network connection or raise the timeout; the request can be retried.", underlying: urlError)
        case .unsupportedURL, .badURL:
            self = .invalidRequest("it needs an absolute http or https URL (\(cause))")
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            self.init(
                .invalidResponse, "The server's answer is not a valid HTTP response (\(cause)).",
                fix: "Check that the URL points at an HTTP server.", underlying: urlError)
        default:
            self.init(
                .networkFailure, "The server could not be reached (\(cause)).",
                fix: "Check the network connection, the host name and any proxy; the request can be retried.",
                underlying: urlError)
        }
    }
}

extension URLError: NamedTransportFailure {
    package var failureName: String { "URLError \(code.rawValue)" }
}
