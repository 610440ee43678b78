#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a failed refresh or identity check means for the session.
extension AuthManager {
    /// Classifies a token-endpoint failure, updating backoff or rejection state, and returns what to throw: the
    /// endpoint's own ``TokenAuthError`` (with the backoff as its `retryAfter` when transient).
    func failed(_ error: any Error, refreshToken: String?, generation: Int) async throws -> TokenAuthError {
        let endpointError = (error as? TokenAuthError) ?? (error is CancellationError
            ? TokenAuthError(.networkFailure, "The refresh was cancelled.", fix: "Try again.")
            : .unreachable("token endpoint", host: "?", because: error))
        if endpointError.isMisconfiguration {
            // Not the user's credentials: nothing to sign in again for, nothing to erase. Not asked again with
            // this refresh token until new credentials arrive.
            emit(.refreshFailed(.permanent(oauthErrorCode: nil)))
            logger.warning("the token endpoint is misconfigured", metadata: ["code": "\(endpointError.code)"])
            session.refreshFailed(refreshToken: refreshToken, because: endpointError, startedIn: generation)
            return endpointError
        }
        if !endpointError.isTransient {
            emit(.refreshFailed(.permanent(oauthErrorCode: endpointError.oauthErrorCode)))
            logger.debug("the authorization server rejected the refresh", metadata: ["error": "\(endpointError.oauthErrorCode ?? "\(endpointError.code)")"])
            // Settled with the store under the lock, after it was read again (`settleRejection`).
            session.refreshFailed(refreshToken: refreshToken, because: endpointError, startedIn: generation)
            return endpointError
        }
        let transient = throttle.recordFailure(at: wallClock(), retryAfter: endpointError.retryAfter, random: random) {
            endpointError.retrying(after: $0)
        }
        emit(.refreshFailed(.transient))
        logger.debug("refresh failed; backing off", metadata: [
            "failures": "\(throttle.consecutiveFailures)", "delay": "\(transient.retryAfter ?? .zero)",
        ])
        return transient
    }

    /// Classifies a failure to get ready for the identity check, before the refresh token was sent: nothing was
    /// spent, so nothing is written. Keys that cannot be had just now are transient (with backoff); a check that
    /// can never run stops the refresh (``TokenAuthError/Code/identityUntrusted``), and this refresh token is not
    /// sent again until new credentials arrive.
    func identityUnchecked(_ error: any Error, refreshToken: String?, generation: Int) -> TokenAuthError {
        let failure = TokenAuthError.identityFailure(error)
        if failure.isTransient {
            let transient = throttle.recordFailure(at: wallClock(), retryAfter: nil, random: random) {
                failure.retrying(after: $0)
            }
            emit(.refreshFailed(.transient))
            logger.debug("the identity check cannot run just now; backing off", metadata: ["error": "\(LogRedaction.error(error))"])
            return transient
        }
        emit(.refreshFailed(.permanent(oauthErrorCode: nil)))
        logger.warning("the identity check cannot run; the stored tokens are kept", metadata: ["error": "\(LogRedaction.error(error))"])
        session.refreshFailed(refreshToken: refreshToken, because: failure, startedIn: generation)
        return failure
    }

    /// A refreshed `id_token` could not be checked just now: the answer is kept with the check pending, which the
    /// next uses try again after a backoff.
    func identityCheckPending(_ failure: TokenAuthError) {
        _ = identityRetry.recordFailure(at: wallClock(), retryAfter: nil, random: random) { failure.retrying(after: $0) }
        emit(.identityCheckPending)
        logger.debug("the refreshed id_token cannot be checked just now; keeping the tokens, the check is pending", metadata: ["error": "\(LogRedaction.error(failure.underlying ?? failure))"])
    }

    /// Tries a pending identity check again, when one is due: on success the identity is confirmed and written; a
    /// proof of another account ends the session; keys that still cannot be had leave it pending.
    func checkPendingIdentity() async throws {
        guard let identityCheck = configuration.identityCheck, let current = session.pendingIdentityCheck,
            let idToken = current.unverifiedIDToken, let identity = current.identity,
            identityRetry.backingOff(at: wallClock()) == nil
        else { return }
        let generation = session.generation
        let response = TokenResponse(
            accessToken: current.accessToken, tokenType: current.tokenType, refreshToken: current.refreshToken,
            expiresAt: current.expiresAt, scope: current.scope, issuedAt: current.issuedAt, idToken: idToken)
        do {
            var checked = current
            checked.identity = try await identityCheck.checkRefresh(response, keeping: identity)
            checked.unverifiedIDToken = nil
            guard session.identityConfirmed(checked, replacing: current, startedIn: generation) else { return }
            identityRetry.reset()
            emit(.identityConfirmed)
            logger.debug("the pending identity check passed")
            _ = try? await underLock { try await self.saveUnsaved() }
        } catch {
            let failure = TokenAuthError.identityFailure(error)
            if failure.isTransient {
                identityCheckPending(failure)
                return
            }
            guard session.isCurrent(generation), session.current == current else { return }
            throw try await underLock { await self.endSession(answer: current, base: self.session.stored, because: failure) }
        }
    }

    /// Ends the session because a refresh's `id_token` proved another account, or cannot be trusted at all, after
    /// the old refresh token was spent (OpenID Connect Core §12.2): nothing of the answer is used. The entry keeps
    /// who was signed in and why it ended, with no refresh token to send again; the answer's tokens are revoked.
    /// - Returns: the ``TokenAuthError/Code/sessionEnded`` error to throw, with the identity failure as its cause.
    func endSession(answer: Auth, base: Auth?, because failure: TokenAuthError) async -> TokenAuthError {
        emit(.refreshFailed(.permanent(oauthErrorCode: nil)))
        emit(.sessionEnded)
        logger.warning("a refreshed id_token was not accepted; the session ended", metadata: ["code": "\(failure.code)"])
        let rejection = session.identityRejected(answer: answer, base: base, because: failure)
        _ = try? await saveUnsaved()
        await revokeReceived(answer, besides: nil)
        discardKeptAnswer()
        return rejection
    }
}
