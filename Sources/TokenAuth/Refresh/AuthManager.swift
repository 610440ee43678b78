#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import Synchronization

/// Hands out valid access tokens, refreshing them when they expire — once, however many callers need it.
///
/// ```swift
/// let manager = AuthManager(store: store, refresher: TokenEndpointClient(client: oauthClient, transport: transport))
/// let token = try await manager.validToken()
/// ```
///
/// The rules it keeps:
/// - **Single flight.** Concurrent callers that need a refresh share one request to the token endpoint.
/// - **Stale-token check.** ``refresh(rejecting:)`` refreshes only if the rejected token is still the current one.
/// - **Nothing is spent that cannot be kept.** Before a refresh token is sent, the store proves that it takes a write
///   (``AuthSaver/markRefreshStarted(_:at:)``): a locked keyring or a read-only disk fails the call with nothing
///   spent.
/// - **Persist before release.** Each answer is kept where it outlives the process (a ``RefreshJournal``) the moment it
///   arrives, then written to the store — tried again a few times when the store fails — before any caller gets it.
///   An answer the store did not take stays kept, and the next use, here or in another process, stores it first: a
///   rotated refresh token is never lost. Meanwhile this manager serves it from memory, or reports
///   ``TokenAuthError/Code/notStored`` (``Configuration/servesUnstoredTokens``).
/// - **A dead refresh token is recorded.** After `invalid_grant` — or the bare HTTP 400 some servers answer instead —
///   the entry is kept but says that a sign-in is required, and holds no refresh token that could be sent again
///   (``Auth/endReason``; ``Configuration/rejectionPolicy``).
/// - **Failure classes.** Every failure is a ``TokenAuthError``. A permanent rejection (`invalid_grant`, …) needs a
///   sign-in (``TokenAuthError/isLoginRequired``); a transient one (network, 5xx, 429, malformed answer:
///   ``TokenAuthError/isTransient``) keeps the tokens, honours `Retry-After` and backs off.
/// - **The newest refresh token.** Each refresh first reads the store again (under the ``RefreshLock``, when there
///   is one): tokens another process stored are adopted, and used without a request when they are still fresh; a
///   refresh always sends the newest refresh token the store holds, never an older one it kept in memory.
/// - **Ordered writes.** Sign-in, sign-out and each refresh's write run under the lock, and a refresh's tokens are
///   written only in place of the version it started from (``AuthSaver/update(_:replacing:)``): a sign-in or
///   sign-out elsewhere wins over an older refresh, whose tokens are revoked (with a ``TokenRevoker``) and never
///   stored. See <doc:SharingASessionBetweenProcesses>.
/// - **Identity.** With an ``Configuration/identityCheck``, a refresh never changes who is signed in: an `id_token`
///   that cannot be checked just now leaves the check pending (tried again on each use), and one that proves another
///   account ends the session.
///
/// Expiry is decided by the injected wall clock, so a laptop that slept sees real time.
///
/// A token that is valid, stored and needs no decision is handed out without entering the actor, so callers
/// under load do not queue behind each other for it. A store that announces changes (`storeChanges`) takes tokens
/// off that path until they are read again, so another process's sign-out or refresh is seen before the next use.
///
/// The actor only coordinates. Its rules live in values: `SessionState`, a state machine that takes each event (the
/// store read, a sign-in, a refresh answered or refused, a write accepted) and returns the action the actor performs,
/// and `RefreshThrottle` (the excessive-refresh window and the backoff). Its other mutable fields are the two flights
/// under way — the first load of the store, and a refresh — and the answer kept in the journal.
public actor AuthManager {
    let store: any AuthStore
    let refresher: any TokenRefresher
    /// The manager's settings.
    public nonisolated let configuration: Configuration
    nonisolated let wallClock: WallClock
    let lock: (any RefreshLock)?
    let revoker: (any TokenRevoker)?
    let journal: (any RefreshJournal)?
    let clock: any Clock<Duration>
    let logger: Logger
    let random: @Sendable (ClosedRange<Double>) -> Double

    /// Redacted events of what the manager does, from now on. Each access is a stream of its own, so any number of
    /// consumers may follow them; each buffers the newest 100.
    public nonisolated var events: AsyncStream<AuthEvent> { eventBroadcast.subscribe() }
    let eventBroadcast = EventBroadcast()

    /// The session. Every change republishes the servable tokens.
    var session: SessionState {
        didSet { servable.publish(session.servable) }
    }
    /// When the token endpoint may be asked again.
    var throttle: RefreshThrottle
    /// When a pending identity check may be tried again.
    var identityRetry: RefreshThrottle
    /// The refresh under way, which every caller that needs one joins.
    var flight: Flight<Auth>?
    /// The first load of the store under way, which every first caller joins.
    var loading: Flight<Void>?
    /// The refresh answer this manager kept in the ``journal`` and has not discarded yet.
    var keptAnswer: Auth?
    /// How many refreshes beside the callers failed in a row (``refreshBeside(at:)``).
    var besideFailures = 0
    /// ``SessionState/servable``, readable without entering the actor, and whether the store announced a change
    /// since. Whether the tokens are still valid is checked by the reader, against the wall clock.
    nonisolated let servable: ServableTokens
    /// Follows the store's announcements of changes, for the manager's lifetime.
    private nonisolated let watcher: Task<Void, Never>?

    /// Creates a manager.
    /// - Parameters:
    ///   - store: where tokens are loaded from and saved to.
    ///   - refresher: the token endpoint, usually a ``TokenEndpointClient``.
    ///   - configuration: leeway, refresh limits, backoff and failure policy.
    ///   - lock: orders refreshes and writes with other processes sharing the store (e.g. ``FileRefreshLock``).
    ///   - revoker: revokes the tokens of a refresh that lost to a sign-in or sign-out (e.g. a
    ///     ``TokenRevocationClient``); without one they are left to expire.
    ///   - journal: where each refresh's answer is kept until the store has it, and where the answers of refreshes
    ///     that could not store theirs are found (TokenAuthKeyring's `FileRefreshJournal`); without one an answer the
    ///     store does not take lives in this process only. Share it, like the lock, with every process of the entry.
    ///   - storeChanges: announcements that another process may have changed the store (the keyring store's
    ///     follow the Secret Service's signals). Each takes the tokens off the fast path until the store is read
    ///     again. Best effort: the re-read under the lock before each refresh does not depend on them.
    ///   - wallClock: the wall clock that decides expiry.
    ///   - clock: the clock of the waits between tries of a store that failed to take a refresh's answer.
    ///   - logger: where the manager logs; it never logs a token.
    ///   - random: the source of backoff jitter.
    public init(
        store: any AuthStore,
        refresher: any TokenRefresher,
        configuration: Configuration = Configuration(),
        lock: (any RefreshLock)? = nil,
        revoker: (any TokenRevoker)? = nil,
        journal: (any RefreshJournal)? = nil,
        storeChanges: AsyncStream<Void>? = nil,
        wallClock: @escaping WallClock = systemWallClock,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "TokenAuth.AuthManager"),
        random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
    ) {
        self.store = store
        self.refresher = refresher
        self.configuration = configuration
        self.lock = lock
        self.revoker = revoker
        self.journal = journal
        self.wallClock = wallClock
        self.clock = clock
        self.logger = logger
        self.random = random
        session = SessionState(
            leeway: configuration.leeway, minimumValidity: configuration.minimumValidity,
            usesClientCredentials: configuration.usesClientCredentials,
            checksIdentity: configuration.identityCheck != nil, rejectionPolicy: configuration.rejectionPolicy)
        throttle = RefreshThrottle(
            limit: configuration.refreshLimit, window: configuration.refreshWindow, backoff: configuration.backoff)
        identityRetry = RefreshThrottle(limit: .max, window: .zero, backoff: configuration.backoff)
        let servable = ServableTokens()
        self.servable = servable
        watcher = storeChanges.map { changes in
            Task {
                for await _ in changes { servable.markStale() }
            }
        }
    }

    deinit {
        watcher?.cancel()
        eventBroadcast.finish()
    }

    // MARK: Handing out tokens

    /// A token bundle whose access token is valid: beyond the leeway, as it is; inside it, while valid for longer than
    /// ``Configuration/minimumValidity``, as it is while a refresh runs beside the callers; closer to its expiry, once
    /// refreshed — or, when that refresh fails for any reason but a needed sign-in, as it is while it is still valid.
    /// - Throws: ``TokenAuthError`` — a sign-in is needed (``TokenAuthError/isLoginRequired``), the token endpoint
    ///   failed (``TokenAuthError/isTransient`` when the tokens were kept), or refreshes came too fast — or the store's
    ///   own error (such as a locked keyring).
    public nonisolated func validAuth() async throws -> Auth {
        if let auth = servable.current() {
            let now = wallClock()
            if auth.isFresh(at: now, leeway: configuration.leeway) { return auth }
            if auth.servesBesideRefresh(at: now, leeway: configuration.leeway, minimumValidity: configuration.minimumValidity) {
                refreshBeside(at: now)
                return auth
            }
        }
        return try await decideValidAuth()
    }

    /// ``validAuth()`` when the token needs loading, writing, refreshing, checking or a look at a failure.
    private func decideValidAuth() async throws -> Auth {
        try await prepare()
        switch session.tokensNeeded(at: wallClock()) {
        case .serve(let auth):
            return auth
        case .serveRefreshingBeside(let auth):
            refreshBeside(at: wallClock())
            return auth
        case .fail(let error):
            throw error
        case .refresh(let fallback):
            do {
                return try await sharedRefresh(.needed)
            } catch {
                // Not expired yet, only close to it: the old token still works, whatever kept the refresh from
                // landing — the endpoint, or a store that is locked or does not answer.
                guard let fallback, fallback.isValid(at: wallClock()), Self.leavesValidTokens(error) else { throw error }
                logger.debug("the refresh failed; serving the token that is still valid", metadata: ["error": "\(LogRedaction.error(error))"])
                return fallback
            }
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
        return try await sharedRefresh(.forced)
    }

    /// Called when a server rejected `accessToken`: refreshes only if it is still the current token.
    ///
    /// A request that left with a token which has since been replaced — here, or by another process, as the store
    /// shows once read again — is simply re-sent with the current one, so that a burst of rejected requests causes
    /// one refresh, not one each.
    public func refresh(rejecting accessToken: String) async throws -> Auth {
        try await prepare()
        if let flight { return try await flight.wait() }
        if let auth = session.tokens(serving: .rejected(accessToken), at: wallClock()) { return auth }
        return try await sharedRefresh(.rejected(accessToken))
    }

    /// Replaces the session with new tokens, e.g. after a sign-in, and stores them — under the lock, so that a
    /// refresh in another process is either finished before or starts from these tokens.
    public func signIn(_ auth: Auth) async throws {
        session.signIn(auth)
        throttle.reset()
        identityRetry.reset()
        _ = try await underLock { try await self.saveUnsaved() }
    }

    /// Signs out: discards the session and erases the stored tokens, under the lock. A refresh under way is waited
    /// for and its result discarded (its tokens revoked, with a ``TokenRevoker``); its waiters get
    /// ``TokenAuthError/Code/signedOut``.
    public func signOut() async throws {
        session.signOut()
        if let flight { _ = try? await flight.wait() }
        try await underLock {
            try await self.store.erase()
            await self.erased()
        }
        emit(.loggedOut)
        logger.debug("logged out")
    }

    private func erased() {
        session.erased()
    }

    /// How many sign-ins and sign-outs the session has seen, for tests that act in the middle of one.
    package var sessionGeneration: Int { session.generation }

    /// Starts from tokens the caller has just loaded from the store, saving the manager a second read.
    package func prime(with auth: Auth) {
        session.loaded(auth)
    }

    func emit(_ event: AuthEvent) {
        eventBroadcast.yield(event)
    }
}

/// The tokens a caller may take without entering the actor, whether the store announced a change since, and whether
/// a refresh beside the callers may be started.
final class ServableTokens: Sendable {
    private struct State {
        var auth: Auth?
        var stale = false
        /// A refresh beside the callers is under way.
        var besideRefreshing = false
        /// No refresh beside the callers is started before this time (after one failed).
        var besideNotBefore: Date?
        /// The refresh beside the callers last started.
        var besideTask: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// The servable tokens, unless the store announced a change that has not been read yet.
    func current() -> Auth? {
        state.withLock { $0.stale ? nil : $0.auth }
    }

    func publish(_ auth: Auth?) {
        state.withLock { $0.auth = auth }
    }

    /// The store may hold other tokens now.
    func markStale() {
        state.withLock { $0.stale = true }
    }

    /// Whether a refresh beside the callers may start at `now`: none is under way and none failed too recently. A
    /// `true` answer claims it, until ``besideRefreshEnded(notBefore:)``.
    func claimBesideRefresh(at now: Date) -> Bool {
        state.withLock { state in
            guard !state.besideRefreshing, state.besideNotBefore.map({ now >= $0 }) ?? true else { return false }
            state.besideRefreshing = true
            return true
        }
    }

    /// Records the task of the refresh beside the callers just claimed.
    func besideRefreshStarted(_ task: Task<Void, Never>) {
        state.withLock { $0.besideTask = task }
    }

    /// The refresh beside the callers last started, for tests that wait for it to land.
    var besideTask: Task<Void, Never>? { state.withLock { $0.besideTask } }

    /// The refresh beside the callers ended; the next may start at `notBefore` (`nil`: at once).
    func besideRefreshEnded(notBefore: Date?) {
        state.withLock {
            $0.besideRefreshing = false
            $0.besideNotBefore = notBefore
        }
    }

    /// Whether a change was announced since the last call; clears the mark.
    func takeStale() -> Bool {
        state.withLock { state in
            defer { state.stale = false }
            return state.stale
        }
    }
}
