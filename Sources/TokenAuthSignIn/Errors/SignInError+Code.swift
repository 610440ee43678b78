extension SignInError {
    /// What failed, as a stable value: compare with the static members (`error.code == .denied`), or switch over it
    /// with a `default` — codes may be added without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable, CaseIterable {
            case insecureIssuer, invalidIssuer, metadataNotFound, redirected, metadataNotJSON, issuerMismatch
            case missingEndpoint, insecureEndpoint, responseTooLarge, unavailable, unknownProvider
            case denied, rejected, codeExpired, malformedResponse, unusableDeviceAnswer
            case responseIssuerMismatch, timedOut, listenerUnavailable, noAuthorizationEndpoint, pkceUnsupported
            case invalidRedirect, noGraphicalSession, browserNotStarted
            case missingIDToken, malformedIDToken, unsupportedAlgorithm, unknownKey, keyNotYetFetched, badSignature
            case wrongIssuer, wrongAudience, wrongAuthorizedParty, idTokenExpired, issuedInFuture, nonceMismatch
            case subjectChanged, jwksUnavailable, jwksMisconfigured, userinfoUnavailable, userinfoInvalid
            case userinfoSubjectMismatch
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The code's name.
        public var description: String { base.rawValue }

        /// Every code, for tests that go over all of them (the categories, `tokenctl`'s exit statuses).
        package static var all: [Code] { Base.allCases.map(Code.init) }

        // MARK: Discovery (RFC 8414, OpenID Connect Discovery)

        /// The issuer is neither `https` nor `http` on a loopback host; nothing was sent.
        public static let insecureIssuer = Code(.insecureIssuer)
        /// The issuer URL has no host, or has a query or fragment (RFC 8414 §2); nothing was sent.
        public static let invalidIssuer = Code(.invalidIssuer)
        /// No well-known URL answered with a document (each answered 4xx).
        public static let metadataNotFound = Code(.metadataNotFound)
        /// A well-known URL answered with a redirect, which is not followed.
        public static let redirected = Code(.redirected)
        /// The metadata document is not a JSON object.
        public static let metadataNotJSON = Code(.metadataNotJSON)
        /// The metadata's `issuer` is not exactly the issuer asked for (RFC 8414 §3.3), or is missing.
        public static let issuerMismatch = Code(.issuerMismatch)
        /// An endpoint the flow needs is not in the metadata (``SignInError/member`` names it).
        public static let missingEndpoint = Code(.missingEndpoint)
        /// An endpoint is neither `https` nor `http` on a loopback host; nothing was sent to it.
        public static let insecureEndpoint = Code(.insecureEndpoint)
        /// The metadata document is larger than ``AuthorizationServerMetadata/maximumSize``.
        public static let responseTooLarge = Code(.responseTooLarge)
        /// ``KnownProvider/named(_:)`` does not know the name, or it needs more (Microsoft's tenant).
        public static let unknownProvider = Code(.unknownProvider)
        /// A server could not be used just now: no answer, no answer in time, 5xx, 408 or 429, or the provider said
        /// `temporarily_unavailable` or `server_error`. Transient.
        public static let unavailable = Code(.unavailable)

        // MARK: The user's answer (the device authorization endpoint's own failures are the core's `TokenAuthError`)

        /// The user declined, or the provider refused the user (`access_denied`).
        public static let denied = Code(.denied)
        /// The authorization response carried another OAuth error, such as `invalid_scope` or
        /// `unauthorized_client` (``SignInError/oauthError``).
        public static let rejected = Code(.rejected)
        /// The device code expired before the user approved it.
        public static let codeExpired = Code(.codeExpired)
        /// The device authorization endpoint answered 2xx with something that is not a device authorization (no
        /// `device_code`, `user_code`, verification URI or positive `expires_in`, or no JSON object): the endpoint
        /// or the client is not what the provider expects. A misconfiguration, not transient.
        public static let unusableDeviceAnswer = Code(.unusableDeviceAnswer)
        /// The browser came back with an answer that is not an authorization response (neither one `code` nor one
        /// `error`). Transient.
        public static let malformedResponse = Code(.malformedResponse)

        // MARK: The browser

        /// The authorization response's `iss` is not the issuer the sign-in started with, or is missing where the
        /// server promised it (RFC 9207): it came from another server.
        public static let responseIssuerMismatch = Code(.responseIssuerMismatch)
        /// No authorization response came back within the time limit. Transient.
        public static let timedOut = Code(.timedOut)
        /// The loopback listener could not be started: transient on an ephemeral port, a misconfiguration on a
        /// fixed one.
        public static let listenerUnavailable = Code(.listenerUnavailable)
        /// The server publishes no authorization endpoint: no browser sign-in there (the device code may work).
        public static let noAuthorizationEndpoint = Code(.noAuthorizationEndpoint)
        /// The server lists PKCE methods and S256 is not among them; `plain` is never used.
        public static let pkceUnsupported = Code(.pkceUnsupported)
        /// The redirect path is not an absolute path such as `/callback`, or the port is out of range.
        public static let invalidRedirect = Code(.invalidRedirect)
        /// Neither `BROWSER` is set nor is there a graphical session (`DISPLAY`, `WAYLAND_DISPLAY`, Flatpak).
        public static let noGraphicalSession = Code(.noGraphicalSession)
        /// No command of `BROWSER`, or `xdg-open`, could be started.
        public static let browserNotStarted = Code(.browserNotStarted)

        // MARK: The id_token (OpenID Connect Core §3.1.3.7)

        /// The token response has no `id_token`, although the scope asked for `openid`.
        public static let missingIDToken = Code(.missingIDToken)
        /// The `id_token` is not a JWS with a JSON header and claims, or a required claim is missing.
        public static let malformedIDToken = Code(.malformedIDToken)
        /// The `id_token` is unsigned, MAC'ed with a shared secret, or signed with an algorithm not accepted
        /// (accepted: RS256/384/512, PS256/384/512, ES256/384/512, EdDSA).
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// The `id_token` names a key the issuer's key set does not have, even after fetching it again.
        public static let unknownKey = Code(.unknownKey)
        /// The `id_token` names a key the key set lacked when fetched, too recently to fetch again
        /// (``IDTokenVerifier/minimumRefetchInterval``). Transient.
        public static let keyNotYetFetched = Code(.keyNotYetFetched)
        /// The signature does not verify with the issuer's key.
        public static let badSignature = Code(.badSignature)
        /// `iss` is not exactly the expected issuer.
        public static let wrongIssuer = Code(.wrongIssuer)
        /// `aud` does not name this client, or names others without an `azp`.
        public static let wrongAudience = Code(.wrongAudience)
        /// `azp` names another client.
        public static let wrongAuthorizedParty = Code(.wrongAuthorizedParty)
        /// `exp` is past (beyond the allowed clock skew).
        public static let idTokenExpired = Code(.idTokenExpired)
        /// `iat` is in the future (beyond the allowed clock skew).
        public static let issuedInFuture = Code(.issuedInFuture)
        /// The `id_token` does not carry the nonce this sign-in sent.
        public static let nonceMismatch = Code(.nonceMismatch)
        /// A refresh returned an `id_token` for another account: its `iss` or `sub` is not the stored identity's.
        public static let subjectChanged = Code(.subjectChanged)

        // MARK: The issuer's keys and UserInfo

        /// The key set (`jwks_uri`) could not be fetched just now. Transient.
        public static let jwksUnavailable = Code(.jwksUnavailable)
        /// The key set cannot be used as configured: no or an insecure `jwks_uri`, a redirect, a 4xx, not a JWK
        /// Set, no usable signing key, or larger than ``IDTokenVerifier/maximumDocumentSize``.
        public static let jwksMisconfigured = Code(.jwksMisconfigured)
        /// The UserInfo endpoint could not be used just now. Transient.
        public static let userinfoUnavailable = Code(.userinfoUnavailable)
        /// The UserInfo endpoint refused the access token, redirected, is insecure, or answered with something that
        /// is not a JSON object with a `sub`.
        public static let userinfoInvalid = Code(.userinfoInvalid)
        /// The UserInfo answer is about another subject than the `id_token` (OpenID Connect Core §5.3.2).
        public static let userinfoSubjectMismatch = Code(.userinfoSubjectMismatch)
    }
}
