extension OAuthTestServer {
    /// What the user does on the authorization page, as the test decides it.
    package enum AuthorizationOutcome: Sendable, Equatable {
        /// The user signs in as `subject` and approves: the browser is sent back with a code.
        case approve(subject: String)
        /// The user declines: the browser is sent back with `error=access_denied`.
        case deny
        /// The server refuses with `error` (such as `invalid_scope` or `temporarily_unavailable`).
        case error(String, description: String?)
    }

    /// How the authorization endpoint (`/authorize`) answers, changeable while the server runs through
    /// ``OAuthTestServer/browserFlow``: a test changes the settings it needs, one by one.
    package struct BrowserFlowSettings: Sendable, Equatable {
        /// The user who approves when a test names no one: `ada`.
        package static let defaultSubject = "ada"

        /// What happens to every valid authorization request; approving as ``defaultSubject`` by default. The device
        /// verification page (`/device`) signs in the subject approved here when the person names no one.
        package var outcome = AuthorizationOutcome.approve(subject: defaultSubject)
        /// Whether responses carry `iss` (RFC 9207) and the metadata advertises
        /// `authorization_response_iss_parameter_supported`; by default they do.
        package var sendsIssuer = true
        /// An `iss` to send instead of the server's own, to test that clients refuse it.
        package var issuerOverride: String?
        /// The redirect paths the client registered; `nil` (the default) accepts any path. Any loopback port is
        /// accepted either way (RFC 8252 §7.3).
        package var registeredRedirectPaths: Set<String>?
        /// How long a code can be exchanged, in seconds by the server's clock; 60 by default.
        package var codeLifetime = 60
        /// Whether the metadata lists `code_challenge_methods_supported` as `["plain"]` only, as a server without
        /// S256 would.
        package var advertisesPlainPKCEOnly = false

        /// Creates the default settings.
        package init() {}
    }

    /// Counters of the browser flow, read through ``OAuthTestServer/browserFlowStats``.
    package struct BrowserFlowStats: Sendable, Equatable {
        /// Requests to `/authorize`, whatever their outcome.
        package var authorizationRequests = 0
        /// Codes issued.
        package var codesIssued = 0
        /// Authorization requests refused before any redirect (unknown client or unusable redirect URI).
        package var refusedWithoutRedirect = 0
        /// Token requests with the `authorization_code` grant, whatever their outcome.
        package var codeExchanges = 0
        /// Exchanges refused because the verifier does not match the challenge.
        package var verifierMismatches = 0
        /// Exchanges that got tokens.
        package var successfulExchanges = 0
        /// The `nonce` of the last authorization request, if it had one.
        package var lastNonce: String?
        /// The `code_challenge_method` of the last authorization request.
        package var lastChallengeMethod: String?

        /// Creates zeroed counters.
        package init() {}
    }
}
