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
                if let host = self.configuration.refreshHost {
                    result = .success(try await self.refreshElsewhere(host, generation: generation, reason: reason))
                } else {
                    result = .success(try await self.underLock {
                        try await self.refreshHoldingLock(generation: generation, reason: reason)
                    })
                }
            } catch {
                result = .failure(error)
            }
            self.land(flight)
            flight.finish(result)
        }
        return try await flight.wait()
    }

    /// The refresh run by `host` in another process, which takes the lock itself. First, under the lock, what the store
    /// holds may serve already (another process refreshed), or a backoff after transient failures may hold the
    /// request back, as for a grant of this process's own; then the host runs; then what the store holds — stored by
    /// that process, or by another — decides: served, failed (a session that ended), or, when it is still not what
    /// `reason` needs, the other process's error, whose transient kind starts a backoff. This process never sends the
    /// grant itself.
    private func refreshElsewhere(_ host: any RefreshHost, generation: Int, reason: RefreshReason) async throws -> Auth {
        if let served = try await underLock({ try await self.beforeRefreshElsewhere(generation: generation, reason: reason) }) {
            return served
        }
        var failure: (any Error)?
        do {
            try await host.refresh(reason.request)
            throttle.reset()
        } catch let error as TokenAuthError where error.isTransient {
            failure = throttle.recordFailure(at: wallClock(), retryAfter: error.retryAfter, random: random) {
                error.retrying(after: $0)
            }
        } catch {
            failure = error
        }
        let reported = failure
        return try await underLock {
            try await self.afterRefreshElsewhere(generation: generation, reason: reason, failure: reported)
        }
    }

    /// What the store holds, read again under the lock, when it serves `reason`; `nil` when a refresh is needed.
    private func beforeRefreshElsewhere(generation: Int, reason: RefreshReason) async throws -> Auth? {
        try await catchUpWithStore()
        try await recoverKeptAnswer()
        let now = wallClock()
        switch session.refreshAsked(reason, startedIn: generation, at: now, backingOff: throttle.backingOff(at: now)) {
        case .serve(let auth): return auth
        case .fail(let error): throw error
        case .request: return nil
        }
    }

    private func afterRefreshElsewhere(generation: Int, reason: RefreshReason, failure: (any Error)?) async throws -> Auth {
        try await catchUpWithStore()
        try await recoverKeptAnswer()
        switch session.refreshAsked(reason, startedIn: generation, at: wallClock(), backingOff: nil) {
        case .serve(let auth): return auth
        case .fail(let error): throw error
        case .request: throw failure ?? TokenAuthError.refreshNotRun()
        }
    }

    /// Clears the in-flight slot only if it still holds `flight`.
    private func land(_ flight: Flight<Auth>) {
        if self.flight === flight { self.flight = nil }
    }

    /// The refresh itself. The rule: it starts from the newest version the store holds. Read again under the lock,
    /// another process's tokens are adopted first — and an answer another refresh kept but could not store
    /// (``RefreshJournal``) is stored first — and used without a request when they serve `reason`; otherwise the
    /// request sends the stored refresh token, never an older one this process kept in memory.
    private func refreshHoldingLock(generation: Int, reason: RefreshReason) async throws -> Auth {
        try await catchUpWithStore()
        try await recoverKeptAnswer()
        let used = session.current?.refreshToken
        do {
            return try await requestIfNeeded(reason, generation: generation)
        } catch let error as TokenAuthError where error.code == .rejected {
            // A writer that does not take the lock may have replaced the tokens since the read: what it stored wins.
            try await catchUpWithStore()
            guard session.isCurrent(generation) else { return try session.afterReplacement(at: wallClock()).get() }
            if error == .invalidGrant, let current = session.current, current.refreshToken != used {
                return try await requestIfNeeded(reason, generation: generation)
            }
            try await settleRejection(of: used, because: error)
            throw error
        }
    }

    /// Does what the session decides for a refresh: serve its tokens, fail, or ask the token endpoint.
    private func requestIfNeeded(_ reason: RefreshReason, generation: Int) async throws -> Auth {
        let now = wallClock()
        switch session.refreshAsked(reason, startedIn: generation, at: now, backingOff: throttle.backingOff(at: now)) {
        case .serve(let auth): return auth
        case .fail(let error): throw error
        case .request(let base): return try await requestTokens(base: base, startedAt: now, generation: generation)
        }
    }

    private func requestTokens(base: Auth?, startedAt: Date, generation: Int) async throws -> Auth {
        let refreshToken = base?.refreshToken
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

        // The key too: one that cannot be used fails here, with nothing written and nothing spent.
        if let proofKey = base?.proofKey {
            do {
                try await refresher.prepareProof(with: proofKey)
            } catch let error as TokenAuthError where error.code == .proofKeyUnavailable {
                // The key's device cannot be had just now (a TPM away or busy, no provider): the refresh token was not
                // sent, so nothing is held against it, and the next call tries again.
                emit(.refreshFailed(.permanent(oauthErrorCode: nil)))
                logger.warning("the session's DPoP key cannot be used just now", metadata: ["code": "\(error.code)"])
                throw error
            } catch {
                throw try await failed(error, refreshToken: refreshToken, generation: generation)
            }
        }

        // The window: from the write ahead of the grant until its answer is stored, kept or known lost.
        let closeWindow = await configuration.windowGuards.enter()
        defer { closeWindow() }
        if refreshToken != nil { try await markRefreshStarted() }

        emit(.refreshStarted)
        logger.debug("refreshing", metadata: ["grant": "\(refreshToken == nil ? "client_credentials" : "refresh_token")"])
        let response: TokenResponse
        do {
            response = try await grant(refreshToken, proofKey: base?.proofKey)
        } catch {
            throw try await failed(error, refreshToken: refreshToken, generation: generation)
        }

        var auth = response.auth(updating: base)
        let checksIdentity = identityCheck != nil && base?.identity != nil && response.idToken != nil
        // Kept before anything else: from here on the answer outlives this process, whatever happens to it.
        keepAnswer(checksIdentity ? auth.withPendingCheck(of: response.idToken) : auth)
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
            }
        }
        // Persist before release: store first, then make the tokens current and hand them out.
        guard session.refreshAnswered(auth, startedIn: generation) == .write else {
            return try await discard(auth, besides: base)
        }
        throttle.reset()
        emit(.refreshSucceeded)
        if let previous = base?.refreshToken, let new = response.refreshToken, new != previous {
            emit(.refreshTokenRotated)
        }
        if keptAnswer.map({ $0 != auth }) ?? false { keepAnswer(auth) }
        do {
            guard try await storeAnswer() else { return try session.afterSupersede(at: wallClock()).get() }
        } catch let error as TokenAuthError where error.isLoginRequired {
            throw error
        } catch {
            // Reported by `saveUnsaved`; kept in the journal, and written again on the next call.
            guard configuration.servesUnstoredTokens else {
                _ = session.answerReleased(auth, startedIn: generation, at: wallClock())
                throw notStored(because: error)
            }
        }
        // Signed in or out while saving: the waiters get the new session (`signOut()` waits for this refresh to erase).
        return try session.answerReleased(auth, startedIn: generation, at: wallClock()).get()
    }

    /// Sends the grant. A refresh whose answer did not arrive — the connection broke or timed out, maybe after the
    /// server had rotated — is sent once more at once with the same refresh token: servers with a grace period for
    /// reuse answer it again, and the others refuse it, which is then known rather than guessed.
    ///
    /// A refresh token bound to a key (DPoP), or a client's tokens bound to one, are renewed with a proof from
    /// `proofKey`.
    private func grant(_ refreshToken: String?, proofKey: ProofKey?) async throws -> TokenResponse {
        guard let refreshToken else {
            return try await refresher.clientCredentials(scope: configuration.scope, proofKey: proofKey)
        }
        do {
            return try await refresher.refresh(refreshToken: refreshToken, scope: configuration.scope, proofKey: proofKey)
        } catch let error as TokenAuthError where error.code == .networkFailure || error.code == .timedOut {
            logger.debug("the refresh's answer did not arrive; sending the same refresh token once more")
            return try await refresher.refresh(refreshToken: refreshToken, scope: configuration.scope, proofKey: proofKey)
        }
    }

    /// The write ahead of the grant (``AuthSaver/markRefreshStarted(_:at:)``): the store proves that it takes a write
    /// before the refresh token is spent, so a store that cannot be written fails the call with nothing spent. Another
    /// writer's change found here wins, as in ``saveUnsaved()``; the caller may try again from it.
    private func markRefreshStarted() async throws {
        guard let stored = session.stored else { return }
        let now = wallClock()
        do {
            try await store.markRefreshStarted(stored, at: now)
        } catch let error as TokenAuthError where error.code == .missing || error.code == .superseded {
            try await take(try await store.load())
            throw TokenAuthError.superseded("the store")
        }
        var marked = stored
        marked.refreshStartedAt = now
        session.written(marked)
    }

    /// A refresh's answer that arrived after a sign-in or sign-out here: revoked, never stored.
    private func discard(_ auth: Auth, besides base: Auth?) async throws -> Auth {
        logger.debug("discarding a refresh that finished after sign-out or sign-in")
        await revokeReceived(auth, besides: base)
        discardKeptAnswer()
        return try session.afterReplacement(at: wallClock()).get()
    }
}
