import Foundation
import Logging
import Synchronization

/// Hands out valid access tokens, refreshing them when they expire — once, however many callers need it.
///
/// ```swift
/// let manager = AuthManager(store: store, refresher: TokenEndpointClient(client: client))
/// let token = try await manager.validToken()
/// ```
///
/// The rules it keeps:
/// - **Single flight.** Concurrent callers that need a refresh share one request to the token endpoint.
/// - **Stale-token check.** ``refresh(rejecting:)`` refreshes only if the rejected token is still the current one.
/// - **Persist before release.** New tokens are written to the store before any caller gets them. If the write
///   fails, callers still get the (valid) tokens, the failure is reported as an event, and the write is retried
///   on the next call — a rotated refresh token is never lost.
/// - **Failure classes.** A permanent rejection (`invalid_grant`, …) is ``AuthError/Code/loginRequired``; a
///   transient one (network, 5xx, 429, malformed answer) keeps the tokens, honours `Retry-After` and backs off.
/// - **Sign-out wins.** ``signOut()`` during a refresh discards the refresh's result: nothing is written back.
/// - **Across processes.** With a ``RefreshLock``, each refresh runs under the lock and first re-reads the store:
///   newer tokens stored by another process are adopted without a request.
///
/// Expiry is decided by the injected wall clock, so a laptop that slept sees real time.
///
/// A token that is valid, stored and needs no decision is handed out without entering the actor, so callers
/// under load do not queue behind each other for it.
///
/// The actor only coordinates. Its rules live in two values with their own invariants: `SessionState` (the
/// tokens, the write still owed to the store, a rejection, the generation) and `RefreshThrottle` (the
/// excessive-refresh window and the backoff). Its only other mutable fields are the two flights under way: the
/// first load of the store, and a refresh.
public actor AuthManager {
    private let store: any AuthStore
    private let refresher: any TokenRefresher
    /// The manager's settings.
    public nonisolated let configuration: Configuration
    private nonisolated let wallClock: WallClock
    private let lock: (any RefreshLock)?
    private let logger: Logger
    private let random: @Sendable (ClosedRange<Double>) -> Double

    /// Redacted events of what the manager does. One consumer; the newest 100 are buffered.
    public nonisolated let events: AsyncStream<AuthEvent>
    private let eventSink: AsyncStream<AuthEvent>.Continuation

    /// The session. Every change republishes `servable`.
    private var session = SessionState() {
        didSet {
            let auth = session.servable
            servable.withLock { $0 = auth }
        }
    }
    /// When the token endpoint may be asked again.
    private var throttle: RefreshThrottle
    /// The refresh under way, which every caller that needs one joins.
    private var flight: Flight<Auth>?
    /// The first load of the store under way, which every first caller joins.
    private var loading: Flight<Void>?
    /// ``SessionState/servable``, readable without entering the actor. Whether it is still valid is checked by
    /// the reader, against the wall clock.
    private nonisolated let servable = Mutex<Auth?>(nil)

    /// Creates a manager.
    /// - Parameters:
    ///   - store: where tokens are loaded from and saved to.
    ///   - refresher: the token endpoint, usually a ``TokenEndpointClient``.
    ///   - configuration: leeway, refresh limits, backoff and failure policy.
    ///   - lock: coordinates refreshes with other processes sharing the store (e.g. ``FileRefreshLock``).
    ///   - wallClock: the wall clock that decides expiry.
    ///   - logger: where the manager logs; it never logs a token.
    ///   - random: the source of backoff jitter.
    public init(
        store: any AuthStore,
        refresher: any TokenRefresher,
        configuration: Configuration = Configuration(),
        lock: (any RefreshLock)? = nil,
        wallClock: @escaping WallClock = systemWallClock,
        logger: Logger = Logger(label: "TokenAuth.AuthManager"),
        random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
    ) {
        self.store = store
        self.refresher = refresher
        self.configuration = configuration
        self.lock = lock
        self.wallClock = wallClock
        self.logger = logger
        self.random = random
        throttle = RefreshThrottle(
            limit: configuration.refreshLimit, window: configuration.refreshWindow, backoff: configuration.backoff)
        (events, eventSink) = AsyncStream.makeStream(of: AuthEvent.self, bufferingPolicy: .bufferingNewest(100))
    }

    deinit { eventSink.finish() }

    // MARK: Handing out tokens

    /// A token bundle whose access token is valid for at least the configured leeway, refreshing first if needed.
    /// - Throws: ``AuthError`` (`loginRequired`, `transient`, `excessiveRefresh`) or the store's own error.
    public nonisolated func validAuth() async throws -> Auth {
        if let auth = servable.withLock({ $0 }), auth.isFresh(at: wallClock(), leeway: configuration.leeway) {
            return auth
        }
        return try await decideValidAuth()
    }

    /// ``validAuth()`` when the token needs loading, writing, refreshing or a look at a failure.
    private func decideValidAuth() async throws -> Auth {
        try await prepare()
        guard let auth = session.current else {
            if configuration.usesClientCredentials { return try await sharedRefresh() }
            throw session.rejection ?? AuthError.loginRequired("no credentials are stored")
        }
        if auth.isFresh(at: wallClock(), leeway: configuration.leeway) { return auth }
        do {
            return try await sharedRefresh()
        } catch let error as AuthError where error.code == .transient && auth.isValid(at: wallClock()) {
            // Not expired yet, only inside the leeway: the old token still works.
            logger.notice("refresh failed transiently; serving the token that is still valid")
            return auth
        }
    }

    /// The access token of ``validAuth()``.
    public nonisolated func validToken() async throws -> String {
        try await validAuth().accessToken
    }

    /// Refreshes now (joining a refresh already under way), even if the token is still valid.
    @discardableResult
    public func refresh() async throws -> Auth {
        try await prepare()
        return try await sharedRefresh()
    }

    /// Called when a server rejected `accessToken`: refreshes only if it is still the current token.
    ///
    /// A request that left with a token which has since been replaced is simply re-sent with the current one,
    /// so that a burst of rejected requests causes one refresh, not one each.
    public func refresh(rejecting accessToken: String) async throws -> Auth {
        try await prepare()
        if let flight { return try await flight.wait() }
        if let auth = session.current, auth.accessToken != accessToken, auth.isValid(at: wallClock()) {
            return auth
        }
        return try await sharedRefresh()
    }

    /// Replaces the session with new tokens, e.g. after a sign-in, and stores them.
    public func signIn(_ auth: Auth) async throws {
        session.signIn(auth)
        throttle.reset()
        try await saveUnsaved()
    }

    /// Signs out: discards the session and erases the stored tokens. A refresh under way is waited for and its
    /// result discarded; its waiters get ``AuthError/Code/loginRequired``.
    public func signOut() async throws {
        session.signOut()
        if let flight { _ = try? await flight.wait() }
        try await store.erase()
        emit(.loggedOut)
        logger.info("logged out")
    }

    // MARK: Loading and saving

    /// How many sign-ins and sign-outs the session has seen, for tests that act in the middle of one.
    package var sessionGeneration: Int { session.generation }

    /// Starts from tokens the caller has just loaded from the store, saving the manager a second read.
    package func prime(with auth: Auth) {
        guard !session.loaded else { return }
        session.load(auth)
    }

    private func prepare() async throws {
        if !session.loaded { try await sharedLoad() }
        if session.unsaved != nil, !session.saving {
            // A refresh's tokens are written again under the lock, like the refresh itself: a sign-out in another
            // process (which holds it while deleting) then cannot slip between "the entry is there" and the write.
            if session.unsavedIsRefresh, let lock {
                _ = try? await lock.withLock { try await self.saveUnsaved() }
            } else {
                try? await saveUnsaved()
            }
        }
    }

    /// Loads the store once for all first callers. A load that ends after a sign-in or sign-out changes nothing.
    private func sharedLoad() async throws {
        if let loading { return try await loading.wait() }
        let loading = Flight<Void>()
        self.loading = loading
        Task {
            let result: Result<Void, any Error>
            do {
                self.session.load(try await self.store.load())
                result = .success(())
            } catch {
                result = .failure(error)
            }
            if self.loading === loading { self.loading = nil }
            loading.finish(result)
        }
        try await loading.wait()
    }

    /// Writes the session's unsaved tokens; on failure keeps them for the next call and reports it.
    ///
    /// A refresh's tokens go through ``AuthSaver/update(_:)``: when the entry they replace is gone, the session
    /// was signed out elsewhere — nothing is written and the error is `loginRequired`.
    private func saveUnsaved() async throws {
        guard let auth = session.unsaved else { return }
        session.saving = true
        defer { session.saving = false }
        do {
            if session.unsavedIsRefresh {
                try await store.update(auth)
            } else {
                try await store.save(auth)
            }
            session.saved(auth)
            emit(.saved)
        } catch let error as AuthStoreError where error.code == .missing {
            try signedOutElsewhere()
        } catch {
            emit(.saveFailed(reason: LogRedaction.error(error)))
            logger.error("could not store the tokens; keeping them in memory and retrying on the next call", metadata: ["error": "\(LogRedaction.error(error))"])
            throw error
        }
    }

    // MARK: Refreshing

    private func sharedRefresh() async throws -> Auth {
        if let flight { return try await flight.wait() }
        let flight = Flight<Auth>()
        self.flight = flight
        let generation = session.generation
        Task {
            let result: Result<Auth, any Error>
            do {
                result = .success(try await self.runRefresh(generation: generation))
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

    private func runRefresh(generation: Int) async throws -> Auth {
        if let lock {
            return try await lock.withLock { try await self.refreshHoldingLock(generation: generation, reread: true) }
        }
        return try await refreshHoldingLock(generation: generation, reread: false)
    }

    private func refreshHoldingLock(generation: Int, reread: Bool) async throws -> Auth {
        if reread {
            let stored = try await rereadStore()
            guard session.isCurrent(generation) else { return try sessionAfterReplacement() }
            if let stored, stored != session.current, stored.isFresh(at: wallClock(), leeway: configuration.leeway) {
                // Another process refreshed already: take its tokens instead of spending ours.
                adopt(stored)
                return stored
            }
        }
        let used = session.current?.refreshToken
        do {
            return try await requestTokens(generation: generation)
        } catch let error as AuthError where error.code == .loginRequired && error.oauthErrorCode == "invalid_grant" && reread {
            // Another process may have rotated the token we just spent: what it stored wins.
            let stored = try await rereadStore()
            guard session.isCurrent(generation) else { return try sessionAfterReplacement() }
            if let stored, stored.refreshToken != used {
                adopt(stored)
                if stored.isFresh(at: wallClock(), leeway: configuration.leeway) { return stored }
                return try await requestTokens(generation: generation)
            }
            throw error
        }
    }

    /// What the store holds now, read under the lock. When the entry the session loaded is gone, another process
    /// signed out: the session ends and this throws `loginRequired`.
    ///
    /// A sign-in or sign-out here may have overtaken the refresh while it read: callers check the generation
    /// before using the answer.
    private func rereadStore() async throws -> Auth? {
        let generation = session.generation
        let stored = try await store.load()
        if stored == nil, session.storeHasEntry, session.isCurrent(generation) { try signedOutElsewhere() }
        return stored
    }

    /// Ends the session because its stored entry is gone, and throws `loginRequired`. Nothing is written.
    private func signedOutElsewhere() throws -> Never {
        session.signedOutElsewhere()
        emit(.loggedOut)
        logger.info("the stored tokens were removed by another process; signed out")
        throw session.rejection ?? AuthError.loginRequired("the session was signed out in another process")
    }

    private func adopt(_ stored: Auth) {
        session.adopt(stored)
        throttle.reset()
        emit(.adoptedFromStore)
        logger.info("adopted newer tokens from the store")
    }

    private func requestTokens(generation: Int) async throws -> Auth {
        let startedAt = wallClock()
        if let backingOff = throttle.backingOff(at: startedAt) { throw backingOff }
        let refreshToken = session.current?.refreshToken
        if let rejection = session.knownRejection(of: refreshToken) { throw rejection }
        guard refreshToken != nil || configuration.usesClientCredentials else {
            throw AuthError.loginRequired(session.current == nil ? "no credentials are stored" : "there is no refresh token")
        }
        guard throttle.admit(at: startedAt) else {
            emit(.refreshFailed(.excessiveRefresh))
            logger.warning("refresh limit reached", metadata: ["limit": "\(configuration.refreshLimit)"])
            throw AuthError(
                .excessiveRefresh,
                "more than \(configuration.refreshLimit) refreshes within \(configuration.refreshWindow)")
        }

        // The identity check's keys are fetched before the refresh token is spent: afterwards, a response that
        // cannot be checked would be discarded together with its rotated refresh token.
        let identityCheck = session.current?.identity == nil ? nil : configuration.identityCheck
        if let identityCheck {
            do {
                try await identityCheck.prepare()
            } catch {
                throw identityRejected(error, refreshToken: refreshToken, generation: generation)
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

        guard session.isCurrent(generation) else {
            logger.info("discarding a refresh that finished after sign-out or sign-in")
            return try sessionAfterReplacement()
        }
        let previous = session.current
        var auth = response.auth(updating: previous)
        if let identityCheck, let identity = previous?.identity, response.idToken != nil {
            // Tokens for another account, or with an id_token that does not validate, are never adopted.
            do {
                auth.identity = try await identityCheck.identity(afterRefresh: response, keeping: identity)
            } catch {
                throw identityRejected(error, refreshToken: refreshToken, generation: generation)
            }
            guard session.isCurrent(generation) else { return try sessionAfterReplacement() }
        }
        throttle.reset()
        emit(.refreshSucceeded)
        if let previous = previous?.refreshToken, let new = response.refreshToken, new != previous {
            emit(.refreshTokenRotated)
        }
        // Persist before release: store first, then make the tokens current and hand them out. On failure
        // they are still handed out, and the unsaved tokens are written again on the next call — unless the
        // entry they replace is gone (signed out elsewhere), which ends the session.
        session.stage(auth)
        do {
            try await saveUnsaved()
        } catch let error as AuthError where error.code == .loginRequired {
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

    /// What the waiters of a refresh get when `signOut()` or `signIn(_:)` replaced the session meanwhile:
    /// the new session's tokens after a sign-in, `loginRequired` after a sign-out.
    private func sessionAfterReplacement() throws -> Auth {
        if let current = session.current, current.isValid(at: wallClock()) { return current }
        throw session.rejection ?? AuthError.loginRequired("the session was logged out")
    }

    /// Classifies a token-endpoint failure, updating backoff or rejection state.
    private func failed(_ error: any Error, refreshToken: String?, generation: Int) async throws -> AuthError {
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

    /// Classifies a failure of the identity check (before the request, or of the response's `id_token`). The
    /// refresh's tokens, if any, are discarded; the store is not touched, whatever the rejection policy.
    private func identityRejected(_ error: any Error, refreshToken: String?, generation: Int) -> AuthError {
        if error is CancellationError { return AuthError.transient("the refresh was cancelled", retryAfter: nil, underlying: nil) }
        let identityError = error as? IDTokenError
        if let identityError, identityError.isTransient {
            let transient = throttle.recordFailure(at: wallClock(), retryAfter: nil, random: random) { delay in
                AuthError(.transient, "\(identityError)", retryAfter: delay, identityError: identityError)
            }
            emit(.refreshFailed(.transient))
            logger.notice("the identity check cannot run just now; backing off", metadata: ["error": "\(LogRedaction.error(error))"])
            return transient
        }
        let rejection: AuthError
        if identityError?.code == .subjectChanged {
            rejection = AuthError(
                .loginRequired, "the refresh answered for another account; its tokens were discarded",
                identityError: identityError)
        } else {
            rejection = AuthError(
                .misconfigured, identityError.map { "\($0)" } ?? "the identity check failed (\(type(of: error)))",
                identityError: identityError)
        }
        emit(.refreshFailed(.permanent(oauthErrorCode: nil)))
        logger.warning("the refreshed id_token was not accepted; the stored tokens are kept", metadata: ["error": "\(LogRedaction.error(error))"])
        if session.isCurrent(generation) { session.reject(refreshToken: refreshToken, because: rejection) }
        return rejection
    }

    private func emit(_ event: AuthEvent) {
        eventSink.yield(event)
    }
}
