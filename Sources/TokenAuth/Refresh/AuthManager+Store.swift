#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading and writing the store: the first load, catching up with what other processes wrote, and the writes,
/// each under the lock.
extension AuthManager {
    /// Gets the session ready for a decision: loaded, caught up with an announced change, the answer of a refresh
    /// that another process began looked for, its pending write retried, its pending identity check tried when due.
    func prepare() async throws {
        if !session.isLoaded { try await sharedLoad() }
        if session.needsRecovery, flight == nil {
            // A version marked as refreshing: a refresh began elsewhere and may not have stored its answer. Look for it
            // under the lock — which also waits for a refresh still under way — before serving anything.
            if journal == nil {
                session.recovered()
            } else {
                try await underLock {
                    try await self.catchUpWithStore()
                    try await self.recoverKeptAnswer()
                }
            }
        }
        if servable.takeStale() {
            do {
                try await catchUpWithStore()
            } catch let error as TokenAuthError where error.isLoginRequired {
                throw error
            } catch {
                // The store cannot be read just now: keep serving what is in memory, and read again on the next use.
                // The refresh's own re-read, under the lock, does not depend on this one.
                servable.markStale()
                logger.debug("could not read the store after it announced a change", metadata: ["error": "\(LogRedaction.error(error))"])
            }
        }
        if let pending = session.writeDue {
            // Under the lock, like every write: a sign-out in another process (which holds it while deleting) then
            // cannot slip between "the entry is as read" and the write.
            do {
                _ = try await underLock { try await self.saveUnsaved() }
            } catch let error as TokenAuthError where error.isLoginRequired {
                throw error
            } catch {
                // A refresh's answer is never handed out unstored where that is not wanted.
                if !configuration.servesUnstoredTokens, case .replacing = pending { throw notStored(because: error) }
            }
        }
        try await checkPendingIdentity()
    }

    /// Runs `body` holding the lock, or just runs it without one.
    func underLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        guard let lock else { return try await body() }
        return try await lock.withLock(body)
    }

    /// Loads the store once for all first callers. A load that ends after a sign-in or sign-out changes nothing.
    func sharedLoad() async throws {
        if let loading { return try await loading.wait() }
        let loading = Flight<Void>()
        self.loading = loading
        Task {
            let result: Result<Void, any Error>
            do {
                self.session.loaded(try await self.store.load())
                result = .success(())
            } catch {
                result = .failure(error)
            }
            if self.loading === loading { self.loading = nil }
            loading.finish(result)
        }
        try await loading.wait()
    }

    /// Reads the store and takes in what another process wrote: newer tokens are adopted, an ended or removed entry
    /// ends the session (and throws `loginRequired`). A sign-in or sign-out that overtook the read wins.
    func catchUpWithStore() async throws {
        let generation = session.generation
        let found = try await store.load()
        guard session.isCurrent(generation) else { return }
        try await take(found)
    }

    /// Takes in `found`, what the store holds now; see ``catchUpWithStore()``.
    func take(_ found: Auth?) async throws {
        switch session.read(found) {
        case .none:
            break
        case .landed(let found):
            logger.debug("a write reported failed had landed")
            if let kept = keptAnswer, kept.isSameVersion(as: found) { discardKeptAnswer() }
        case .adopted(let discarded):
            await revokeLost(discarded)
            throttle.reset()
            emit(.adoptedFromStore)
            logger.debug("adopted newer tokens from the store")
        case .ended(let rejection, let discarded):
            await revokeLost(discarded)
            emit(.loggedOut)
            logger.debug("the session was ended or signed out by another process")
            throw rejection
        }
    }

    /// Revokes a refresh's tokens that the store never accepted, now replaced by another writer's: never stored.
    private func revokeLost(_ discarded: SessionState.Discarded?) async {
        guard let discarded else { return }
        await revokeReceived(discarded.tokens, besides: discarded.base)
        if keptAnswer == discarded.tokens { discardKeptAnswer() }
    }

    /// Writes the session's pending write; on failure keeps it for the next call and reports it.
    ///
    /// Tokens made from the stored version go through ``AuthSaver/update(_:replacing:)``: when the entry they
    /// replace is gone or was replaced by another writer, that writer wins — nothing is written, the store's
    /// version is taken in (`loginRequired` when it is gone), the tokens that lost are revoked, and this returns
    /// `false`.
    /// - Parameter reportsFailure: whether a failure is reported (an event, and the log at error level), or left to the
    ///   caller, which tries again.
    /// - Returns: whether the write happened.
    @discardableResult
    func saveUnsaved(reportsFailure: Bool = true) async throws -> Bool {
        guard let write = session.writeStarted() else { return true }
        defer { session.writeEnded() }
        do {
            switch write {
            case .signIn(let auth), .replacing(nil, let auth):
                try await store.save(auth)
            case .replacing(let base?, let auth):
                try await store.update(auth, replacing: base)
            }
            session.written(write.auth)
            if keptAnswer == write.auth { discardKeptAnswer() }
            emit(.saved)
            return true
        } catch let error as TokenAuthError where error.code == .missing || error.code == .superseded {
            let found = try await store.load()
            // What is stored now may be this very write, reported failed by an earlier try that landed after all.
            if let found, found.isSameVersion(as: write.auth) {
                try await take(found)
                return true
            }
            logger.debug("another writer changed the stored tokens first; theirs stand", metadata: ["store": "\(error.code)"])
            emit(.writeSuperseded)
            try await take(found)
            return false
        } catch {
            guard reportsFailure else {
                logger.debug("could not store the tokens; trying again", metadata: ["error": "\(LogRedaction.error(error))"])
                throw error
            }
            emit(.saveFailed(reason: LogRedaction.error(error)))
            logger.error("could not store the tokens", metadata: [
                "error": "\(LogRedaction.error(error))", "kept": "\(keptAnswer == nil ? "in memory" : journal?.location ?? "")",
            ])
            throw error
        }
    }

    /// Revokes, best effort, the tokens of `auth` that `base` does not hold too: what a refresh received and will
    /// never store. An ended entry holds nothing to revoke.
    func revokeReceived(_ auth: Auth, besides base: Auth?) async {
        guard let revoker, auth.isLive else { return }
        var tokens: [(String, TokenRevocationClient.TokenTypeHint)] = []
        if let refreshToken = auth.refreshToken, refreshToken != base?.refreshToken {
            tokens.append((refreshToken, .refreshToken))
        }
        if auth.accessToken != base?.accessToken { tokens.append((auth.accessToken, .accessToken)) }
        for (token, hint) in tokens {
            do {
                try await revoker.revoke(token, hint: hint)
            } catch {
                logger.debug("could not revoke tokens that will not be used", metadata: ["error": "\(LogRedaction.error(error))"])
                return
            }
        }
        if !tokens.isEmpty { emit(.discardedTokensRevoked) }
    }
}
