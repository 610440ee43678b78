// Built with the package trait OpenCombine (see Package.swift): without it this module is empty, and an app
// that does not ask for it resolves no OpenCombine.
#if OpenCombine
import Foundation
import HTTPTypes
@preconcurrency import OpenCombine
import TokenAuth

extension AuthorizedClient {
    /// A publisher that sends a request when subscribed, as ``AuthorizedClient/send(_:body:requiresAuthentication:)``
    /// does — with the same refresh, single retry and errors — and publishes the response and body.
    ///
    /// Each subscription sends the request once. Concurrent subscriptions whose token was rejected share one
    /// refresh. Cancelling the subscription cancels the request.
    public func sendPublisher(
        _ request: HTTPRequest,
        body: Data? = nil,
        requiresAuthentication: Bool = true
    ) -> AnyPublisher<(HTTPResponse, Data), any Error> {
        AsyncOperationPublisher { [self] in
            try await send(request, body: body, requiresAuthentication: requiresAuthentication)
        }
        .eraseToAnyPublisher()
    }

    /// A publisher that sends a request when subscribed and decodes its 2xx JSON body, as
    /// ``AuthorizedClient/load(_:for:body:requiresAuthentication:decoder:)`` does.
    public func loadPublisher<T: Decodable & Sendable>(
        _ type: T.Type = T.self,
        for request: HTTPRequest,
        body: Data? = nil,
        requiresAuthentication: Bool = true,
        decoder: JSONDecoder? = nil
    ) -> AnyPublisher<T, any Error> {
        AsyncOperationPublisher { [self] in
            try await load(type, for: request, body: body, requiresAuthentication: requiresAuthentication, decoder: decoder)
        }
        .eraseToAnyPublisher()
    }
}
#endif  // OpenCombine
