import Foundation
import TokenAuth

extension IDTokenVerifier: IdentityCheck {
    /// ``prepare()`` for `AuthManager`, with its ``SignInError`` told as the core's `TokenAuthError` (see
    /// ``SignInError/identityCheckFailure``).
    public func prepareCheck() async throws {
        do {
            try await prepare()
        } catch let error as SignInError {
            throw error.identityCheckFailure
        }
    }

    /// Checks a refresh's `id_token` for `AuthManager`: ``identity(afterRefresh:keeping:)``, with its
    /// ``SignInError`` told as the core's `TokenAuthError` (see ``SignInError/identityCheckFailure``).
    public func checkRefresh(_ response: TokenResponse, keeping previous: Identity) async throws -> Identity {
        do {
            return try await identity(afterRefresh: response, keeping: previous)
        } catch let error as SignInError {
            throw error.identityCheckFailure
        }
    }

    /// The verifier for a stored client that records its issuer and `jwks_uri`, or `nil`: the
    /// `IdentityCheckFactory` to give TokenAuthKeyring's `AuthManager.forKeyringItem`.
    ///
    /// ```swift
    /// let manager = try await AuthManager.forKeyringItem(
    ///     service: "api.example.com", account: "ada", transport: transport,
    ///     identityChecks: IDTokenVerifier.forStoredClient)
    /// ```
    public static let forStoredClient: IdentityCheckFactory = { client, transport, wallClock in
        IDTokenVerifier(client: client, transport: transport, wallClock: wallClock)
    }
}
