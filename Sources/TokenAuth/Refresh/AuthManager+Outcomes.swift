import Foundation

/// What a failed refresh or identity check means for the session.
extension AuthManager {
    /// Classifies a token-endpoint failure, updating backoff or rejection state.
    func failed(_ error: any Error, refreshToken: String?, generation: Int) async throws -> AuthError {
        if error is CancellationError { return AuthError.transient("the refresh was cancelled", retryAfter: nil, underlying: nil) }
        let endpointError = error as? TokenEndpointError
        if let endpointError, endpointError.isMisconfiguration {
            // Not the user's credentials: nothing to sign in again for, nothing to erase. Not asked again with
            // this refresh token until new credentials arrive.
            emit(.refreshFailed(.permanent(oauthErrorCode: nil)))
            logger.warning("the token endpoint is misconfigured")
            let misconfigured = AuthError(.misconfigured, "\(endpointError)", underlying: endpointError)
            if session.isCurrent(generation) { session.reject(refreshToken: refreshToken, because: misconfigured) }
            return misconfigured
        }
        if let endpointError, endpointError.isPermanent {
            emit(.refreshFailed(.permanent(oauthErrorCode: endpointError.oauthErrorCode)))
            logger.warning("the authorization server rejected the refresh", metadata: ["error": "\(endpointError.oauthErrorCode ?? "-")"])
            let reason = endpointError.oauthErrorCode == nil
                ? "\(endpointError)" : "the authorization server rejected the credentials"
            let rejection = AuthError.loginRequired(reason, rejection: endpointError)
            if session.isCurrent(generation) {
                session.reject(refreshToken: refreshToken, because: rejection)
                if configuration.rejectionPolicy == .eraseStoredCredentials {
                    session.forgetTokens()
                    try await store.erase()
                    session.erased()
                }
            }
            return rejection
        }
        let transient = throttle.recordFailure(
            at: wallClock(), retryAfter: endpointError?.retryAfter, random: random
        ) { delay in
            AuthError.transient(endpointError.map { "\($0)" } ?? "\(error)", retryAfter: delay, underlying: endpointError)
        }
        emit(.refreshFailed(.transient))
        logger.notice("refresh failed; backing off", metadata: [
            "failures": "\(throttle.consecutiveFailures)", "delay": "\(transient.retryAfter ?? .zero)",
        ])
        return transient
    }

    /// Classifies a failure to get ready for the identity check, before the refresh token was sent: nothing was
    /// spent, so nothing is written. Keys that cannot be had just now are transient (with backoff); a check that
    /// can never run is `misconfigured`, and this refresh token is not sent again until new credentials arrive.
    func identityUnchecked(_ error: any Error, refreshToken: String?, generation: Int) -> AuthError {
        if error is CancellationError { return AuthError.transient("the refresh was cancelled", retryAfter: nil, underlying: nil) }
        let failure = IdentityCheckFailure.from(error)
        if failure.isTransient {
            let transient = throttle.recordFailure(at: wallClock(), retryAfter: nil, random: random) { delay in
                AuthError(.transient, failure.reason, retryAfter: delay, identityFailure: failure)
            }
            emit(.refreshFailed(.transient))
            logger.notice("the identity check cannot run just now; backing off", metadata: ["error": "\(LogRedaction.error(error))"])
            return transient
        }
        let misconfigured = AuthError(.misconfigured, failure.reason, identityFailure: failure)
        emit(.refreshFailed(.permanent(oauthErrorCode: nil)))
        logger.warning("the identity check cannot run; the stored tokens are kept", metadata: ["error": "\(LogRedaction.error(error))"])
        if session.isCurrent(generation) { session.reject(refreshToken: refreshToken, because: misconfigured) }
        return misconfigured
    }

    /// A refreshed `id_token` could not be checked just now: the answer is kept with the check pending, which the
    /// next uses try again after a backoff.
    func identityCheckPending(_ failure: IdentityCheckFailure) {
        _ = identityRetry.recordFailure(at: wallClock(), retryAfter: nil, random: random) { delay in
            AuthError(.transient, failure.reason, retryAfter: delay, identityFailure: failure)
        }
        emit(.identityCheckPending)
        logger.notice("the refreshed id_token cannot be checked just now; keeping the tokens, the check is pending", metadata: ["error": "\(LogRedaction.error(failure.underlying ?? failure))"])
    }

    /// Tries a pending identity check again, when one is due: on success the identity is confirmed and written; a
    /// proof of another account ends the session; keys that still cannot be had leave it pending.
    func checkPendingIdentity() async throws {
        guard let identityCheck = configuration.identityCheck, let current = session.current,
            let idToken = current.unverifiedIDToken, let identity = current.identity,
            identityRetry.backingOff(at: wallClock()) == nil
        else { return }
        let generation = session.generation
        let response = TokenResponse(
            accessToken: current.accessToken, tokenType: current.tokenType, refreshToken: current.refreshToken,
            expiresAt: current.expiresAt, scope: current.scope, issuedAt: current.issuedAt, idToken: idToken)
        do {
            let confirmed = try await identityCheck.checkRefresh(response, keeping: identity)
            guard session.isCurrent(generation), session.current == current else { return }
            var checked = current
            checked.identity = confirmed
            checked.unverifiedIDToken = nil
            identityRetry.reset()
            session.stage(checked)
            session.release(checked)
            emit(.identityConfirmed)
            logger.info("the pending identity check passed")
            _ = try? await underLock { try await self.saveUnsaved() }
        } catch {
            let failure = IdentityCheckFailure.from(error)
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
    /// - Returns: the `loginRequired` error to throw, with the identity error.
    func endSession(answer: Auth, base: Auth?, because failure: IdentityCheckFailure) async -> AuthError {
        let reason = failure.code == .otherAccount
            ? "a refresh answered for another account than the one signed in, so its tokens were discarded"
            : "the id_token of a refresh could not be verified (\(failure.reason)), so its tokens were discarded"
        let rejection = AuthError(.loginRequired, reason, identityFailure: failure)
        let kept = base ?? answer
        let entry = Auth(
            accessToken: kept.accessToken, tokenType: kept.tokenType, refreshToken: nil, expiresAt: kept.expiresAt,
            scope: kept.scope, issuedAt: kept.issuedAt, identity: kept.identity, endReason: reason)
        emit(.refreshFailed(.permanent(oauthErrorCode: nil)))
        emit(.sessionEnded)
        logger.warning("a refreshed id_token was not accepted; the session ended", metadata: ["code": "\(failure.code)"])
        session.end(keeping: entry, because: rejection)
        _ = try? await saveUnsaved()
        await revokeReceived(answer, besides: nil)
        return rejection
    }
}
