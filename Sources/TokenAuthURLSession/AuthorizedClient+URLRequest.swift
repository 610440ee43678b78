import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import HTTPTypesFoundation
import TokenAuth

extension AuthorizedClient {
    /// Sends a `URLRequest`, as `AuthorizedClient.send(_:body:requiresAuthentication:)` does, and returns the body and an
    /// `HTTPURLResponse` the way `URLSession.data(for:)` does.
    ///
    /// The body is the request's `httpBody`. A request with an `httpBodyStream` is refused: a stream cannot be
    /// sent a second time, so such a request could not be retried after a refresh. Read the stream into `Data`
    /// first.
    ///
    /// - Throws: What `AuthorizedClient.send(_:body:requiresAuthentication:)` throws; `TokenAuthError.Code.invalidRequest` for a
    ///   request without an absolute http(s) URL or with a body stream.
    public func data(for request: URLRequest, requiresAuthentication: Bool = true) async throws -> (Data, HTTPURLResponse) {
        let (httpRequest, url) = try Self.convert(request)
        let (response, data) = try await send(httpRequest, body: request.httpBody, requiresAuthentication: requiresAuthentication)
        guard let urlResponse = HTTPURLResponse(httpResponse: response, url: url) else {
            throw TokenAuthError.invalidResponse
        }
        return (data, urlResponse)
    }

    /// Sends a `URLRequest` and decodes its 2xx JSON body, as `AuthorizedClient.load(_:for:body:requiresAuthentication:decoder:)`
    /// does.
    public func load<T: Decodable>(
        _ type: T.Type = T.self,
        for request: URLRequest,
        requiresAuthentication: Bool = true,
        decoder: JSONDecoder? = nil
    ) async throws -> T {
        let (httpRequest, _) = try Self.convert(request)
        return try await load(
            type, for: httpRequest, body: request.httpBody, requiresAuthentication: requiresAuthentication,
            decoder: decoder)
    }

    private static func convert(_ request: URLRequest) throws -> (HTTPRequest, URL) {
        guard request.httpBodyStream == nil else {
            throw TokenAuthError.invalidRequest("a body stream cannot be replayed after a refresh; pass the body as Data")
        }
        guard let url = request.url, let httpRequest = request.httpRequest else {
            throw TokenAuthError.invalidRequest("it needs an absolute http or https URL")
        }
        return (httpRequest, url)
    }
}
