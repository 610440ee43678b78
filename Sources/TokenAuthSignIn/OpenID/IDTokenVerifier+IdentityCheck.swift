import Foundation
import TokenAuth

extension IDTokenVerifier: IdentityCheck {
    /// ``prepare()`` for `AuthManager`, with its ``IDTokenError`` told as the core's `TokenAuthError` (see
    /// ``IDTokenError/identityCheckFailure``).
    public func prepareCheck() async throws {
        do {
            try await prepare()
        } catch let error as IDTokenError {
            throw error.identityCheckFailure
        }
    }

    /// Checks a refresh's `id_token` for `AuthManager`: ``identity(afterRefresh:keeping:)``, with its
    /// ``IDTokenError`` told as the core's `TokenAuthError` (see ``IDTokenError/identityCheckFailure``).
    public func checkRefresh(_ response: TokenResponse, keeping previous: Identity) async throws -> Identity {
        do {
            return try await identity(afterRefresh: response, keeping: previous)
        } catch let error as IDTokenError {
            throw error.identityCheckFailure
        }
    }

    /// The verifier for a stored client that records its issuer and `jwks_uri`, or `nil`: the
    /// `IdentityCheckFactory` to give TokenAuthKeyring's `AuthManager.forKeyringItem`.
    ///
    /// ```swift
    /// let manager = try await AuthManager.forKeyringItem(
    ///     service: "api.example.com", account: "ada", identityChecks: IDTokenVerifier.forStoredClient)
    /// ```
    public static let forStoredClient: IdentityCheckFactory = { client, transport, wallClock in
        IDTokenVerifier(client: client, transport: transport, wallClock: wallClock)
    }
}

extension IDTokenError {
    /// This error as the core's identity-check failure: `identityUnavailable` when ``isTransient``,
    /// `identityMismatch` for ``subjectChanged``, `identityUntrusted` otherwise, with this error as its cause.
    public var identityCheckFailure: TokenAuthError {
        let code: TokenAuthError.Code = isTransient
            ? .identityUnavailable : self == .subjectChanged ? .identityMismatch : .identityUntrusted
        return .identityCheck(code, reason: summary, fix: fix, underlying: self)
    }
}
