#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import HTTPTypes

extension AuthorizedClient {
    /// Sends a request for code that does not use `async`/`await`, and calls `completion` on `queue`.
    ///
    /// Behaves like ``send(_:body:requiresAuthentication:)`` — the same refresh, retry and errors — and adds an
    /// ordering guarantee: requests are handed to the transport in the order they were submitted through this
    /// method (on any copy of this client). A request submitted while a refresh is pending is held until the
    /// refresh ends and then sent with the new token, after the requests submitted before it. Requests then run
    /// concurrently, so completions may arrive in another order.
    ///
    /// ```swift
    /// client.send(HTTPRequest(method: .get, url: url), queue: .main) { result in
    ///     switch result {
    ///     case .success(let (response, body)): show(response, body)
    ///     case .failure(let error as TokenAuthError) where error.isLoginRequired: showSignIn()
    ///     case .failure(let error): show(error)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - body: The request body.
    ///   - requiresAuthentication: `false` for endpoints that need no token.
    ///   - queue: Where `completion` runs.
    ///   - completion: Called exactly once, on `queue`.
    /// - Returns: The submitted request, which can be cancelled.
    @discardableResult
    public func send(
        _ request: HTTPRequest,
        body: Data? = nil,
        requiresAuthentication: Bool = true,
        queue: DispatchQueue,
        completion: @escaping @Sendable (CallbackRequest.Result) -> Void
    ) -> CallbackRequest {
        let handle = CallbackRequest { result in
            queue.async { completion(result) }
        }
        callbacks.submit(
            CallbackPipeline.Job(
                request: request, body: body, requiresAuthentication: requiresAuthentication, handle: handle))
        return handle
    }
}
