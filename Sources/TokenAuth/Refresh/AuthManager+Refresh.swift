#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Refreshing: one flight for every caller, under the lock, from the newest refresh token the store holds.
extension AuthManager {
    func sharedRefresh(_ reason: RefreshReason) async throws -> Auth {
        if let flight { return try await flight.wait() }
        let flight = Flight<Auth>()
        self.flight = flight
        let generation = session.generation
        Task {
            let result: Result<Auth, any Error>
            do {
                result = .success(try await self.underLock {
                    try await self.refreshHoldingLock(generation: generation, reason: reason)
                })
            } catch {
                result = .failure(error)
            }
            self.land(flight)
            flight.finish(result)
        }
        return try await flight.wait()
    }

    /// Clears the in-flight slot only if it still holds `flight`.
    private func land(_ flight: Flight<Auth>) {
        if self.flight === flight { self.flight = nil }
    }

    /// The refresh itself. The rule: it starts from the newest version the store holds. Read again under the lock,
    /// another process's tokens are adopted first, and used without a request when they serve `reason`; otherwise
    /// the request sends the stored refresh token — never an older one this process kept in memory.
    private func refreshHoldingLock(generation: Int, reason: RefreshReason) async throws -> Auth {
        try await catchUpWithStore()
        guard session.isCurrent(generation) else { return try sessionAfterReplacement() }
        if let current = session.current, reason.isSatisfied(by: current, at: wallClock(), leeway: configuration.leeway) {
            return current
        }
        let used = session.current?.refreshToken
        do {
            return try await requestTokens(generation: generation)
        } catch let error as TokenAuthError where error == .invalidGrant {
            // A writer that does not take the lock may have replaced the tokens since the read: what it stored wins.
            try await catchUpWithStore()
            guard session.isCurrent(generation) else { return try sessionAfterReplacement() }
            guard let current = session.current, current.refreshToken != used else { throw error }
            if reason.isSatisfied(by: current, at: wallClock(), leeway: configuration.leeway) { return current }
            return try await requestTokens(generation: generation)
        }
    }

    private func requestTokens(generation: Int) async throws -> Auth {
        let startedAt = wallClock()
        if let backingOff = throttle.backingOff(at: startedAt) { throw backingOff }
        let base = session.current
        let refreshToken = base?.refreshToken
        if let rejection = session.knownRejection(of: refreshToken) { throw rejection }
        guard refreshToken != nil || configuration.usesClientCredentials else {
            throw TokenAuthError.noCredentials(base == nil ? "no credentials are stored" : "there is no refresh token")
        }
        guard throttle.admit(at: startedAt) else {
            emit(.refreshFailed(.excessiveRefresh))
            logger.warning("refresh limit reached", metadata: ["limit": "\(configuration.refreshLimit)"])
            throw TokenAuthError.excessiveRefresh(limit: configuration.refreshLimit, window: configuration.refreshWindow)
        }

        // The identity check's keys are fetched before the refresh token is spent, so that the answer can usually
        // be checked at once.
        let identityCheck = base?.identity == nil ? nil : configuration.identityCheck
        if let identityCheck {
            do {
                try await identityCheck.prepareCheck()
            } catch {
                throw identityUnchecked(error, refreshToken: refreshToken, generation: generation)
            }
        }

        emit(.refreshStarted)
        logger.debug("refreshing", metadata: ["grant": "\(refreshToken == nil ? "client_credentials" : "refresh_token")"])
        let response: TokenResponse
        do {
            if let refreshToken {
                response = try await refresher.refresh(refreshToken: refreshToken, scope: configuration.scope)
            } else {
                response = try await refresher.clientCredentials(scope: configuration.scope)
            }
        } catch {
            throw try await failed(error, refreshToken: refreshToken, generation: generation)
        }

        var auth = response.auth(updating: base)
        guard session.isCurrent(generation) else { return try await discard(auth, besides: base) }
        if let identityCheck, let base, let identity = base.identity {
            auth.unverifiedIDToken = base.unverifiedIDToken
            checking: if response.idToken != nil {
                do {
                    auth.identity = try await identityCheck.checkRefresh(response, keeping: identity)
                    auth.unverifiedIDToken = nil
                } catch {
                    let failure = TokenAuthError.identityFailure(error)
                    guard !failure.isTransient else {
                        // The refresh token is spent: keep the answer, and check it on the next use.
                        auth.unverifiedIDToken = response.idToken
                        identityCheckPending(failure)
                        break checking
                    }
                    guard session.isCurrent(generation) else { return try await discard(auth, besides: base) }
                    throw await endSession(answer: auth, base: base, because: failure)
                }
                guard session.isCurrent(generation) else { return try await discard(auth, besides: base) }
            }
        }
        throttle.reset()
        emit(.refreshSucceeded)
        if let previous = base?.refreshToken, let new = response.refreshToken, new != previous {
            emit(.refreshTokenRotated)
        }
        // Persist before release: store first, then make the tokens current and hand them out. On failure they are
        // still handed out, and written again on the next call — unless another writer replaced the entry they
        // replace, or removed it, which wins.
        session.stage(auth)
        do {
            guard try await saveUnsaved() else { return try sessionAfterSupersede() }
        } catch let error as TokenAuthError where error.isLoginRequired {
            throw error
        } catch {
            // Reported by `saveUnsaved`; written again on the next call.
        }
        guard session.isCurrent(generation) else {
            // Signed out while saving: `signOut()` waits for this refresh and then erases the store.
            return try sessionAfterReplacement()
        }
        session.release(auth)
        return auth
    }

    /// A refresh's answer that arrived after a sign-in or sign-out here: revoked, never stored.
    private func discard(_ auth: Auth, besides base: Auth?) async throws -> Auth {
        logger.info("discarding a refresh that finished after sign-out or sign-in")
        await revokeReceived(auth, besides: base)
        return try sessionAfterReplacement()
    }

    /// What the waiters of a refresh get when `signOut()` or `signIn(_:)` replaced the session meanwhile:
    /// the new session's tokens after a sign-in, `loginRequired` after a sign-out.
    func sessionAfterReplacement() throws -> Auth {
        if let current = session.current, current.isValid(at: wallClock()) { return current }
        throw session.rejection ?? TokenAuthError.signedOut("the session was logged out")
    }

    /// What the waiters of a refresh get when another process wrote the entry first: its tokens, when they are
    /// valid; else ``TokenAuthError/Code/superseded`` (transient), and the next call refreshes from them.
    private func sessionAfterSupersede() throws -> Auth {
        if let current = session.current, current.isValid(at: wallClock()) { return current }
        throw TokenAuthError.superseded("the store")
    }
}
