#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import TokenAuth

extension TokenAuthError {
    /// A URLSession failure: a timeout, a request that cannot be sent, an answer that is not HTTP, or a network
    /// failure. The sentence names the cause in words; the `URLError`, with its code, is the ``underlying`` error and
    /// appears in the transport's log.
    package init(urlError: URLError) {
        switch urlError.code {
        case .timedOut:
            self.init(
                .timedOut, "The server did not answer in time.",
                fix: "Check the network connection or raise the timeout; the request can be retried.", underlying: urlError)
        case .unsupportedURL, .badURL:
            self = .invalidRequest("it needs an absolute http or https URL")
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            self.init(
                .invalidResponse, "The server's answer is not a valid HTTP response.",
                fix: "Check that the URL points at an HTTP server.", underlying: urlError)
        default:
            self.init(
                .networkFailure, "The server could not be reached: \(urlError.failureCause).",
                fix: "Check the network connection, the host name and any proxy; the request can be retried.",
                underlying: urlError)
        }
    }
}

extension URLError: NamedTransportFailure {
    package var failureName: String { "URLError \(code.rawValue)" }

    /// The common causes in words — as FoundationNetworking reports libcurl's failures — and "the connection
    /// failed" for the rest.
    package var failureCause: String {
        switch code {
        case .cannotFindHost: "the host name was not found"
        case .dnsLookupFailed: "the host name could not be looked up"
        case .cannotConnectToHost: "the connection was refused"
        case .networkConnectionLost: "the connection was lost"
        case .notConnectedToInternet: "there is no network connection"
        case .timedOut: "no answer came in time"
        case .secureConnectionFailed: "the TLS handshake failed"
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot:
            "the server's TLS certificate is not trusted"
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            "the server's TLS certificate has expired or is not valid yet"
        case .clientCertificateRequired, .clientCertificateRejected:
            "the server asked for a TLS client certificate"
        case .badServerResponse, .cannotParseResponse: "the answer is not a valid HTTP response"
        case .dataLengthExceedsMaximum: "the answer is too large"
        default: "the connection failed"
        }
    }
}
