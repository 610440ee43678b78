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
    /// let results = DispatchQueue(label: "com.example.app.results")  // a queue libdispatch drains
    /// client.send(HTTPRequest(method: .get, url: url), queue: results) { result in
    ///     switch result {
    ///     case .success(let (response, body)): show(response, body)
    ///     case .failure(let error as TokenAuthError) where error.isLoginRequired: showSignIn()
    ///     case .failure(let error): show(error)
    ///     }
    /// }
    /// ```
    ///
    /// On Linux, `DispatchQueue.main` is drained only by `dispatchMain()` or the main actor's own loop, never under
    /// GLib's (`g_application_run`): a GTK app passing `.main` gets no completion. Such an app passes a completion
    /// isolated to its UI's actor instead (``send(_:body:requiresAuthentication:completion:)`` with TokenAuthGLib's
    /// `@GLibMainActor`).
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

    /// Sends a request for code that does not use `async`/`await`, and calls `completion` on its own actor: a
    /// `@GLibMainActor` closure (TokenAuthGLib) runs on GTK's thread, a `@MainActor` one on the main actor, a
    /// nonisolated one on Swift's global executor.
    ///
    /// Behaves like ``send(_:body:requiresAuthentication:queue:completion:)`` — the same refresh, retry, errors and
    /// submission order — but delivers through Swift's actors rather than a `DispatchQueue`, so the completion is
    /// type-checked as isolated to the UI's actor and may touch its state:
    ///
    /// ```swift
    /// import HTTPTypes
    /// import TokenAuth
    /// import TokenAuthGLib
    ///
    /// client.send(HTTPRequest(method: .get, url: url)) { @GLibMainActor result in
    ///     switch result {
    ///     case .success(let (response, _)): status.text = "The API answered \(response.status.code)"
    ///     case .failure(let error as TokenAuthError) where error.isLoginRequired: status.text = "Not signed in"
    ///     case .failure(let error): status.text = "\(error)"
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - body: The request body.
    ///   - requiresAuthentication: `false` for endpoints that need no token.
    ///   - completion: Called exactly once, on its actor (`completion.isolation`); never synchronously from this
    ///     call or from ``CallbackRequest/cancel()``.
    /// - Returns: The submitted request, which can be cancelled.
    @discardableResult
    public func send(
        _ request: HTTPRequest,
        body: Data? = nil,
        requiresAuthentication: Bool = true,
        completion: @escaping @isolated(any) @Sendable (CallbackRequest.Result) -> Void
    ) -> CallbackRequest {
        let handle = CallbackRequest { result in
            Task { await completion(result) }
        }
        callbacks.submit(
            CallbackPipeline.Job(
                request: request, body: body, requiresAuthentication: requiresAuthentication, handle: handle))
        return handle
    }
}
