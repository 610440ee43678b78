import Foundation

extension OAuthTestServer {
    /// A client the server knows (RFC 6749 §2).
    package struct RegisteredClient: Sendable, Equatable {
        /// The client identifier.
        package var id: String
        /// The secret of a confidential client, or `nil` for a public client that sends only `client_id`.
        package var secret: String?
        /// The grant types this client may use, or `nil` for all three. Others answer `unauthorized_client`.
        package var allowedGrantTypes: Set<String>?
        /// Whether every token request of this client must carry a valid DPoP proof (RFC 9449 §5): one without
        /// answers `invalid_dpop_proof` with ``Configuration/dpopProofRefusalStatus``.
        package var requiresDPoP: Bool

        /// Registers a client.
        package init(id: String, secret: String? = nil, allowedGrantTypes: Set<String>? = nil, requiresDPoP: Bool = false) {
            self.id = id
            self.secret = secret
            self.allowedGrantTypes = allowedGrantTypes
            self.requiresDPoP = requiresDPoP
        }
    }

    /// How the token response carries `expires_in`, so clients can be tested against each form seen in the wild.
    package enum ExpiresInStyle: String, Sendable, Equatable, CaseIterable {
        /// A JSON number, as RFC 6749 §5.1 says.
        case number
        /// A numeric string such as `"3600"`, as some servers send.
        case string
        /// No `expires_in` at all: the client learns no expiry.
        case omitted
    }

    /// How the token endpoint writes its answers.
    package enum TokenAnswerFormat: String, Sendable, Equatable, CaseIterable {
        /// JSON objects, as RFC 6749 §5.1 and §5.2 say.
        case json
        /// GitHub's way: form-encoded (`access_token=…&scope=repo%2Cgist&token_type=bearer`), errors too and with
        /// `200 OK`, unless the request's `Accept` names `application/json`.
        /// https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps
        case formUnlessJSONAccepted
        /// Form-encoded whatever the request accepts, errors with `200 OK`.
        case form
    }

    /// How the token endpoint answers a refresh token it no longer accepts (unknown, retired, revoked).
    package enum DeadRefreshTokenAnswer: String, Sendable, Equatable, CaseIterable {
        /// `400` with `{"error":"invalid_grant"}`, as RFC 6749 §5.2 says.
        case invalidGrant
        /// `400` with an empty body, as some OpenID providers answer it.
        case emptyBadRequest
    }

    /// Everything fixed for the lifetime of one server.
    package struct Configuration: Sendable {
        /// The address to listen on. Keep it on loopback.
        package var host: String
        /// The port to listen on; `0` asks the system for a free one, reported by ``OAuthTestServer/port``.
        package var port: Int
        /// The clients the token endpoint accepts.
        package var clients: [RegisteredClient]
        /// Resource owners for the `password` grant: username to password.
        package var users: [String: String]
        /// How long issued access tokens live, by the server's ``clock``.
        package var accessTokenLifetime: Duration
        /// How `expires_in` appears in token responses.
        package var expiresInStyle: ExpiresInStyle
        /// How the token endpoint writes its answers.
        package var tokenAnswers: TokenAnswerFormat = .json
        /// The HTTP status of the token endpoint's error answers by `error` code, instead of 400 (401 for
        /// `invalid_client`). GitHub answers errors with 200, JSON ones too; Google answers device polls'
        /// `authorization_pending` with 428 and `slow_down` with 403.
        /// https://docs.github.com/en/apps/oauth-apps/maintaining-oauth-apps/troubleshooting-oauth-app-access-token-request-errors
        /// https://developers.google.com/identity/protocols/oauth2/limited-input-device#step-6:-handle-responses-to-polling-requests
        package var tokenErrorStatuses: [String: Int] = [:]
        /// What separates the granted scopes in token answers: a space (RFC 6749 §3.3), or a comma as GitHub writes
        /// them (`scope=repo,gist`).
        /// https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps#2-users-are-redirected-back-to-your-site-by-github
        package var scopeSeparator = " "
        /// When set, token answers also carry Microsoft's `ext_expires_in` (an extended lifetime for outages, which
        /// clients must not take as the token's).
        /// https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow#successful-response-2
        package var extendedExpiresIn: Duration?
        /// When set, answers that carry a refresh token say how long it lives in `refresh_token_expires_in`, as
        /// GitHub's do for the user tokens of GitHub Apps (the server does not expire them itself).
        /// https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/refreshing-user-access-tokens
        package var refreshTokenLifetime: Duration?
        /// How a refresh token the server no longer accepts is answered.
        package var deadRefreshTokenAnswer: DeadRefreshTokenAnswer = .invalidGrant
        /// The `token_type` the server sends; vary its case to test clients that must compare it case-insensitively.
        package var tokenType: String
        /// Whether a refresh grant issues a new refresh token (rotation, RFC 9700 §4.14.2).
        ///
        /// When `false` the response carries no `refresh_token` and the presented one stays valid, so clients must
        /// keep it (RFC 6749 §6).
        package var rotateRefreshTokens: Bool
        /// Whether the `client_credentials` grant also issues a refresh token (RFC 6749 §4.4.3 says it should not).
        package var refreshTokensForClientCredentials: Bool
        /// The scopes the server grants, or `nil` to grant whatever is asked. Others answer `invalid_scope`.
        package var grantableScopes: Set<String>?
        /// The server's notion of now, for access-token expiry.
        package var clock: @Sendable () -> Date
        /// The most of recent requests kept for ``OAuthTestServer/recordedRequests``.
        package var recordedRequestLimit: Int
        /// Whether the metadata documents list `"dpop_signing_alg_values_supported": ["ES256"]` (RFC 9449 §5.1).
        /// Proofs are accepted either way: a client may send one unasked.
        package var advertisesDPoP = false
        /// Whether the token endpoint and the resource demand the server's current nonce in DPoP proofs
        /// (RFC 9449 §8, §9): a proof without it answers `use_dpop_nonce` with a `DPoP-Nonce` header, and every
        /// answer of both carries that header. ``OAuthTestServer/rotateDPoPNonce()`` changes the nonce.
        package var dpopNonces = false
        /// The HTTP status of the token endpoint's `invalid_dpop_proof` answers: 400 as RFC 9449 §5 says, or 403 as
        /// some servers answer. An entry of ``tokenErrorStatuses`` for that code wins over it.
        package var dpopProofRefusalStatus = 400

        /// Creates a configuration. The defaults register the public client `test-client` and the user `alice`
        /// with password `wonderland`.
        package init(
            host: String = "127.0.0.1",
            port: Int = 0,
            clients: [RegisteredClient] = [RegisteredClient(id: "test-client")],
            users: [String: String] = ["alice": "wonderland"],
            accessTokenLifetime: Duration = .seconds(3600),
            expiresInStyle: ExpiresInStyle = .number,
            tokenType: String = "Bearer",
            rotateRefreshTokens: Bool = true,
            refreshTokensForClientCredentials: Bool = false,
            grantableScopes: Set<String>? = nil,
            clock: @escaping @Sendable () -> Date = { Date() },
            recordedRequestLimit: Int = 100
        ) {
            self.host = host
            self.port = port
            self.clients = clients
            self.users = users
            self.accessTokenLifetime = accessTokenLifetime
            self.expiresInStyle = expiresInStyle
            self.tokenType = tokenType
            self.rotateRefreshTokens = rotateRefreshTokens
            self.refreshTokensForClientCredentials = refreshTokensForClientCredentials
            self.grantableScopes = grantableScopes
            self.clock = clock
            self.recordedRequestLimit = recordedRequestLimit
        }

        func client(withID id: String) -> RegisteredClient? {
            clients.first { $0.id == id }
        }

        /// The items of `scope` outside ``grantableScopes``, in their order: none when it is `nil` (every scope is
        /// granted) or `scope` is.
        func ungrantableItems(of scope: String?) -> [String] {
            guard let grantableScopes else { return [] }
            return TokenLedger.scopeItems(scope).filter { !grantableScopes.contains($0) }
        }
    }
}
