// Built with the package trait OpenCombine (see Package.swift): without it this module is empty, and an app
// that does not ask for it resolves no OpenCombine.
#if OpenCombine
@preconcurrency import OpenCombine
import TokenAuth

extension AuthManager {
    /// A publisher of a valid access token, for Combine-style code (OpenCombine on Linux).
    ///
    /// Each subscription asks the manager once, when it first requests a value, and publishes one token then
    /// finishes. Subscriptions at the same time share the manager's single refresh: however many there are, one
    /// request goes to the token endpoint. Cancelling a subscription stops its wait, not the shared refresh.
    ///
    /// - Parameter forceRefresh: `true` to refresh even if the current token is still valid, for example after a
    ///   server rejected it (joining a refresh already under way); `false` for ``validToken()``.
    /// - Returns: A publisher that fails with `TokenAuthError` (or the store's error) when no token can be had.
    public nonisolated func validTokenPublisher(forceRefresh: Bool = false) -> AnyPublisher<String, any Error> {
        AsyncOperationPublisher { [self] in
            forceRefresh ? try await refresh().accessToken : try await validToken()
        }
        .eraseToAnyPublisher()
    }
}
#endif  // OpenCombine
