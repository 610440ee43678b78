extension TokenAuthError {
    /// What failed, as a stable value: compare with the static members (`error.code == .rateLimited`), or switch over
    /// it with a `default` — codes may be added without breaking callers. The categories group them by what to do:
    /// ``TokenAuthError/isLoginRequired``, ``TokenAuthError/isStorageFailure``, ``TokenAuthError/isUnreadableEntry``,
    /// ``TokenAuthError/isTransient``, ``TokenAuthError/isMisconfiguration`` and ``TokenAuthError/isRequestRefused``.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable, CaseIterable {
            case rejected, serverError, rateLimited, networkFailure, timedOut, malformedResponse
            case insecureEndpoint, invalidClientConfiguration, redirected
            case responseTooLarge, invalidRequest, invalidResponse
            case noCredentials, signedOut, sessionEnded, backingOff, excessiveRefresh
            case identityUnavailable, identityMismatch, identityUntrusted
            case corrupt, unsupportedVersion, missing, superseded, storageFailed, notStored
            case unauthorized, insufficientScope, unacceptableStatus, decodingFailed, insecureURL
            case lockUnavailable, lockTimedOut
            case proofRefused, proofKeyUnusable, proofKeyUnavailable
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The code's name.
        public var description: String { base.rawValue }

        /// Every code, for tests that go over all of them (the categories, `tokenctl`'s exit statuses).
        package static var all: [Code] { Base.allCases.map(Code.init) }

        // MARK: The token and revocation endpoints

        /// The server refused the request with an OAuth error answer (RFC 6749 §5.2, RFC 7009 §2.2.1), such as
        /// `invalid_grant`: see ``TokenAuthError/oauthError``. Repeating it cannot succeed.
        public static let rejected = Code(.rejected)
        /// The server answered 5xx, or `server_error` / `temporarily_unavailable`: transient.
        public static let serverError = Code(.serverError)
        /// The server answered 429 (or `slow_down`): transient.
        public static let rateLimited = Code(.rateLimited)
        /// The server could not be reached, or the connection failed: transient.
        public static let networkFailure = Code(.networkFailure)
        /// The server did not answer in time: transient.
        public static let timedOut = Code(.timedOut)
        /// The answer is not what the protocol answers (not a token response, an unexpected status): transient.
        public static let malformedResponse = Code(.malformedResponse)
        /// The endpoint is neither `https` nor on a loopback host: nothing was sent.
        public static let insecureEndpoint = Code(.insecureEndpoint)
        /// The client cannot make the request as configured (a secret is missing, no endpoint is recorded): nothing
        /// was sent.
        public static let invalidClientConfiguration = Code(.invalidClientConfiguration)
        /// The endpoint answered with a redirect, which is not followed: the configured URL is not the endpoint.
        public static let redirected = Code(.redirected)

        // MARK: HTTP

        /// The response body exceeded the transport's limit.
        public static let responseTooLarge = Code(.responseTooLarge)
        /// The request cannot be sent as it is (no absolute URL, a body given as a stream).
        public static let invalidRequest = Code(.invalidRequest)
        /// The answer is not a valid HTTP response.
        public static let invalidResponse = Code(.invalidResponse)

        // MARK: The session

        /// Nothing is stored, or nothing that can be refreshed: sign in.
        public static let noCredentials = Code(.noCredentials)
        /// The session was signed out, here or in another process: sign in.
        public static let signedOut = Code(.signedOut)
        /// The session ended although its entry was kept (``Auth/endReason``): a refresh answered for another
        /// account, or with an `id_token` that cannot be trusted. Sign in.
        public static let sessionEnded = Code(.sessionEnded)
        /// The token endpoint failed recently and is left alone until ``TokenAuthError/retryAfter`` has passed:
        /// transient; ``TokenAuthError/underlying`` is the failure.
        public static let backingOff = Code(.backingOff)
        /// Refreshes came faster than ``AuthManager/Configuration/refreshLimit`` allows: a loop was stopped.
        public static let excessiveRefresh = Code(.excessiveRefresh)

        // MARK: Identity checks

        /// An ``IdentityCheck`` cannot run just now (the issuer's keys cannot be had): transient.
        public static let identityUnavailable = Code(.identityUnavailable)
        /// A refreshed `id_token` is valid and names another account (OpenID Connect Core §12.2).
        public static let identityMismatch = Code(.identityMismatch)
        /// A refreshed `id_token` cannot be trusted, or the check cannot run as configured.
        public static let identityUntrusted = Code(.identityUntrusted)

        // MARK: The store

        /// The stored entry is not a token bundle this library understands; it was left untouched.
        public static let corrupt = Code(.corrupt)
        /// The stored entry was written by a newer version of the format; it was left untouched.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// A refresh was to replace the entry, and there is none any more (signed out elsewhere): nothing written.
        public static let missing = Code(.missing)
        /// A refresh was to replace the entry it read, and another writer replaced it meanwhile: nothing written.
        public static let superseded = Code(.superseded)
        /// The store's own files could not be used: a file store's directory or file is missing permissions, is
        /// open to other users (then it is refused, not read), or the disk refused the write. Nothing was written;
        /// ``TokenAuthError/reason`` names the path.
        public static let storageFailed = Code(.storageFailed)
        /// A refresh received new tokens, and the store could not take them even after a few tries: they are kept
        /// where they outlive the process (``RefreshJournal``), and the next use of the entry stores them once the
        /// store works again. ``TokenAuthError/underlying`` is the store's error. Do not sign in again: the session
        /// is alive.
        public static let notStored = Code(.notStored)

        // MARK: Authorized requests

        /// The resource rejected the token again after a refresh, or rejected a request that could not be retried.
        public static let unauthorized = Code(.unauthorized)
        /// The token lacks the scope the resource needs (`403 insufficient_scope`): a refresh cannot fix it.
        public static let insufficientScope = Code(.insufficientScope)
        /// `AuthorizedClient.load` got a response whose status is not 2xx.
        public static let unacceptableStatus = Code(.unacceptableStatus)
        /// `AuthorizedClient.load` got a 2xx response whose body did not decode.
        public static let decodingFailed = Code(.decodingFailed)
        /// The request's URL is plain `http` to a host that is not a loopback host: nothing was sent.
        public static let insecureURL = Code(.insecureURL)

        // MARK: The refresh lock

        /// The lock file cannot be created, opened or locked.
        public static let lockUnavailable = Code(.lockUnavailable)
        /// Another holder kept the lock longer than the wait allowed: transient.
        public static let lockTimedOut = Code(.lockTimedOut)

        // MARK: Proof of possession (DPoP)

        /// A server refused a DPoP proof (`invalid_dpop_proof`, RFC 9449 §5 and §7.1): the key, the clock or the
        /// configuration is wrong, not the tokens, which were kept (a refresh token is not spent by a refused proof).
        public static let proofRefused = Code(.proofRefused)
        /// The key the session's tokens are bound to cannot be used here, ever: a TPM key made on another machine, or
        /// before the TPM was cleared. Sign in again; the key is never replaced silently.
        public static let proofKeyUnusable = Code(.proofKeyUnusable)
        /// The session's key cannot be used just now: its TPM cannot be reached or opened (no device, no permission),
        /// or no proof-of-possession provider is configured for bound tokens.
        public static let proofKeyUnavailable = Code(.proofKeyUnavailable)
    }
}
