#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Signs an account out of a stored entry — a keyring item (TokenAuthKeyring's `SignOut.perform(service:account:…)`),
/// a `FileAuthStore` file, any ``CredentialsStore`` — revokes its tokens at the server when the entry records a
/// revocation endpoint (RFC 7009), then deletes the entry.
///
/// The item is deleted even when revocation fails — the user asked to be signed out here, and a token that could
/// not be revoked stays valid only until it expires; ``Outcome/revocation`` says what happened so the caller can
/// tell the user. Everything runs under the entry's lock (``CredentialsStore/itemLock(maximumWait:)``), so a refresh in another
/// process finishes first — the tokens revoked are the newest — and cannot write tokens back after the delete.
///
/// A refresh whose answer the store did not take (a keyring that died or was locked in the refresh window) kept it in
/// the entry's ``CredentialsStore/refreshJournal``: those tokens are the session's newest, and the stored refresh
/// token was retired when they were issued. They are revoked first, and the kept answer is discarded with the entry,
/// so that no live token of a signed-out session is left on the machine.
public enum SignOut {
    /// What happened at the revocation endpoint.
    public enum Revocation: Sendable, Equatable {
        /// Nothing was stored, or the item records no revocation endpoint: nothing was sent.
        case notConfigured
        /// The server accepted the revocation of every token sent (the refresh token, then the access token).
        case revoked
        /// A revocation request failed; the item was deleted all the same. The error's `reason` says what failed, and
        /// its `fix` says so: the tokens stay valid at the server until they expire.
        case failed(TokenAuthError)
    }

    /// The result of a sign-out.
    public struct Outcome: Sendable, Equatable {
        /// Whether an item was stored (and is now deleted).
        public var deleted: Bool
        /// What happened at the revocation endpoint.
        public var revocation: Revocation

        package init(deleted: Bool, revocation: Revocation) {
            self.deleted = deleted
            self.revocation = revocation
        }
    }

    /// Signs the account of `store` out: revocation first, then the entry removed, all under the entry's lock.
    ///
    /// ```swift
    /// import TokenAuth
    /// import TokenAuthFileStore
    /// import TokenAuthURLSession
    ///
    /// let outcome = try await SignOut.perform(
    ///     store: FileAuthStore(service: "api.example.com", account: "ada"), transport: URLSessionHTTPTransport())
    /// if case .failed(let error) = outcome.revocation { print("Not revoked: \(error)") }
    /// ```
    ///
    /// - Parameters:
    ///   - store: The entry to sign out of.
    ///   - transport: Sends the revocation requests.
    ///   - wallClock: Tells whether the access token has expired (an expired one is not revoked).
    /// - Throws: the store's errors — for an entry that cannot be read (then nothing is revoked or removed), or one
    ///   that cannot be removed — or the refresh lock's.
    public static func perform(
        store: some CredentialsStore,
        transport: any HTTPTransport,
        wallClock: @escaping WallClock = systemWallClock
    ) async throws -> Outcome {
        try await store.itemLock(maximumWait: type(of: store).signInLockWait).withLock {
            guard let credentials = try await store.loadCredentials() else {
                return Outcome(deleted: false, revocation: .notConfigured)
            }
            // An answer kept that cannot be read is left alone: nothing is deleted because of an error.
            let kept = try? store.refreshJournal.keptAnswer()
            var revocation = Revocation.notConfigured
            if let client = credentials.client, let revoker = TokenRevocationClient(client: client, transport: transport) {
                let sessions = [kept?.answer, credentials.auth].compactMap { $0 }
                revocation = await revoke(sessions, with: revoker, wallClock: wallClock)
            }
            _ = try await store.remove()  // the lock is held: `delete()` would wait for it
            if kept != nil { try? store.refreshJournal.discard() }
            return Outcome(deleted: true, revocation: revocation)
        }
    }

    /// Revokes the refresh tokens first (at most servers that also ends their access tokens), newest first, then the
    /// access tokens that have not expired; each token once. Stops at the first failure.
    private static func revoke(_ sessions: [Auth], with revoker: TokenRevocationClient, wallClock: WallClock) async -> Revocation {
        let now = wallClock()
        var tokens: [(String, TokenRevocationClient.TokenTypeHint)] = []
        for refreshToken in sessions.compactMap(\.refreshToken) where !tokens.contains(where: { $0.0 == refreshToken }) {
            tokens.append((refreshToken, .refreshToken))
        }
        for auth in sessions where auth.isValid(at: now) && !tokens.contains(where: { $0.0 == auth.accessToken }) {
            tokens.append((auth.accessToken, .accessToken))
        }
        for (token, hint) in tokens {
            do {
                try await revoker.revoke(token, hint: hint)
            } catch let error as TokenAuthError {
                return .failed(signedOutAllTheSame(error))
            } catch {
                return .failed(signedOutAllTheSame(
                    .unreachable("revocation endpoint", host: revoker.endpoint.host ?? "?", because: error)))
            }
        }
        return .revoked
    }

    /// The revocation's error with a fix that holds after a sign-out. The endpoint's own fix is for a request that
    /// keeps its tokens ("the tokens were kept and the request can be retried"); here the entry is deleted all the
    /// same, so nothing is left to retry with, and an app that shows `fix` (or the error's description) beside
    /// "signed out" would contradict itself.
    private static func signedOutAllTheSame(_ error: TokenAuthError) -> TokenAuthError {
        TokenAuthError(
            error.code, error.reason,
            fix: "The tokens were deleted here all the same; they stay valid at the server until they expire.",
            underlying: error.underlying, oauthError: error.oauthError, retryAfter: error.retryAfter,
            statusCode: error.statusCode, challenge: error.challenge, body: error.body)
    }
}
