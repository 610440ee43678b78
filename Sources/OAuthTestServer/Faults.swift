extension OAuthTestServer {
    /// Failures the token endpoint injects, so clients can be tested against a misbehaving server.
    ///
    /// Counts are consumed one per token request, in this order: server errors, then unavailability, then
    /// malformed bodies, then header-breaking tokens. `invalidGrantRefreshes` is consumed only by refresh grants that
    /// got past those and past client authentication, `lostAnswers` only by refresh grants that succeeded.
    /// `idTokenFaults` are consumed by the `id_token`s the token endpoint issues, `jwksUnavailable` by requests to
    /// `/jwks`, `userinfoSubjectMismatches` by requests to `/userinfo`, `emptyDPoPUnauthorizedAnswers` by resource
    /// requests with the `DPoP` scheme.
    /// `expiresInJSON` is not counted: it applies to every token response while it is set. Set over HTTP with
    /// `POST /_admin/faults` and a JSON body of these properties; missing properties are zero or absent, so `{}`
    /// clears every fault.
    package struct Faults: Sendable, Equatable, Codable {
        /// Delay added before each token response, in milliseconds.
        package var tokenLatencyMilliseconds: Int
        /// The next this many token requests answer `500 Internal Server Error`.
        package var serverErrors: Int
        /// The next this many token requests answer `503 Service Unavailable`.
        package var unavailable: Int
        /// The `Retry-After` value sent with those 503s, in seconds or as an HTTP-date; `nil` sends none.
        package var retryAfter: String?
        /// The next this many token requests answer `200 OK` with a body that is not JSON.
        package var malformed: Int
        /// The next this many refresh grants answer `invalid_grant` without spending the refresh token.
        package var invalidGrantRefreshes: Int
        /// The next this many token requests answer `200 OK` with a token response whose `access_token` holds a
        /// space and a line break, as a server that puts free text into tokens would.
        package var headerBreakingTokens: Int
        /// The next this many successful refresh grants rotate the refresh token as usual, then close the connection
        /// instead of sending the answer: an answer that never reached the client. Only the retired refresh token is
        /// left to it, so a server like this one (rotation with reuse detection, no grace period) signs it out.
        package var lostAnswers: Int
        /// What is wrong with the next `id_token`s, one fault each, in order.
        package var idTokenFaults: [IDTokenFault]
        /// The next this many requests to `/jwks` answer `503 Service Unavailable`.
        package var jwksUnavailable: Int
        /// The next this many UserInfo answers name another `sub` than the access token's user.
        package var userinfoSubjectMismatches: Int
        /// While set, every token response sends this text, verbatim and unchecked, as the JSON value of
        /// `expires_in` (`1e17`, `-5`, `0`, `"3599"` with its quotes), instead of the configured lifetime. Only the
        /// response says so: the tokens themselves still live ``Configuration/accessTokenLifetime``.
        package var expiresInJSON: String?
        /// The next this many resource requests with the `DPoP` scheme answer `401` with an empty body and no
        /// `WWW-Authenticate`, before their proof or token is looked at (a `DPoP-Nonce` header still comes with
        /// them while nonces are on).
        package var emptyDPoPUnauthorizedAnswers: Int

        /// Creates a set of faults; the defaults inject nothing.
        package init(
            tokenLatencyMilliseconds: Int = 0,
            serverErrors: Int = 0,
            unavailable: Int = 0,
            retryAfter: String? = nil,
            malformed: Int = 0,
            invalidGrantRefreshes: Int = 0,
            headerBreakingTokens: Int = 0,
            lostAnswers: Int = 0,
            idTokenFaults: [IDTokenFault] = [],
            jwksUnavailable: Int = 0,
            userinfoSubjectMismatches: Int = 0,
            expiresInJSON: String? = nil,
            emptyDPoPUnauthorizedAnswers: Int = 0
        ) {
            self.tokenLatencyMilliseconds = tokenLatencyMilliseconds
            self.serverErrors = serverErrors
            self.unavailable = unavailable
            self.retryAfter = retryAfter
            self.malformed = malformed
            self.invalidGrantRefreshes = invalidGrantRefreshes
            self.headerBreakingTokens = headerBreakingTokens
            self.lostAnswers = lostAnswers
            self.idTokenFaults = idTokenFaults
            self.jwksUnavailable = jwksUnavailable
            self.userinfoSubjectMismatches = userinfoSubjectMismatches
            self.expiresInJSON = expiresInJSON
            self.emptyDPoPUnauthorizedAnswers = emptyDPoPUnauthorizedAnswers
        }

        /// Decodes faults from JSON, treating each missing property as its default.
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                tokenLatencyMilliseconds: try container.decodeIfPresent(Int.self, forKey: .tokenLatencyMilliseconds) ?? 0,
                serverErrors: try container.decodeIfPresent(Int.self, forKey: .serverErrors) ?? 0,
                unavailable: try container.decodeIfPresent(Int.self, forKey: .unavailable) ?? 0,
                retryAfter: try container.decodeIfPresent(String.self, forKey: .retryAfter),
                malformed: try container.decodeIfPresent(Int.self, forKey: .malformed) ?? 0,
                invalidGrantRefreshes: try container.decodeIfPresent(Int.self, forKey: .invalidGrantRefreshes) ?? 0,
                headerBreakingTokens: try container.decodeIfPresent(Int.self, forKey: .headerBreakingTokens) ?? 0,
                lostAnswers: try container.decodeIfPresent(Int.self, forKey: .lostAnswers) ?? 0,
                idTokenFaults: try container.decodeIfPresent([IDTokenFault].self, forKey: .idTokenFaults) ?? [],
                jwksUnavailable: try container.decodeIfPresent(Int.self, forKey: .jwksUnavailable) ?? 0,
                userinfoSubjectMismatches: try container.decodeIfPresent(Int.self, forKey: .userinfoSubjectMismatches) ?? 0,
                expiresInJSON: try container.decodeIfPresent(String.self, forKey: .expiresInJSON),
                emptyDPoPUnauthorizedAnswers: try container.decodeIfPresent(Int.self, forKey: .emptyDPoPUnauthorizedAnswers) ?? 0
            )
        }
    }

    /// What the fault plan decides for one token request, before the grant is looked at.
    enum TokenFault: Equatable {
        case serverError
        case unavailable(retryAfter: String?)
        case malformed
        case headerBreakingToken
    }
}

extension OAuthTestServer.Faults {
    /// Takes the next response-level fault, if any is pending, and counts it down.
    mutating func takeTokenFault() -> OAuthTestServer.TokenFault? {
        if serverErrors > 0 {
            serverErrors -= 1
            return .serverError
        }
        if unavailable > 0 {
            unavailable -= 1
            return .unavailable(retryAfter: retryAfter)
        }
        if malformed > 0 {
            malformed -= 1
            return .malformed
        }
        if headerBreakingTokens > 0 {
            headerBreakingTokens -= 1
            return .headerBreakingToken
        }
        return nil
    }

    /// Takes one pending lost answer for a refresh grant that succeeded, if any.
    mutating func takeLostAnswer() -> Bool {
        guard lostAnswers > 0 else { return false }
        lostAnswers -= 1
        return true
    }

    /// Takes one pending empty `401` for a resource request with the `DPoP` scheme, if any.
    mutating func takeEmptyDPoPUnauthorized() -> Bool {
        guard emptyDPoPUnauthorizedAnswers > 0 else { return false }
        emptyDPoPUnauthorizedAnswers -= 1
        return true
    }

    /// Takes one pending `invalid_grant` for a refresh grant, if any.
    mutating func takeInvalidGrant() -> Bool {
        guard invalidGrantRefreshes > 0 else { return false }
        invalidGrantRefreshes -= 1
        return true
    }
}
