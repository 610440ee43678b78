#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The failures of HTTP and of the OAuth endpoints (token, revocation, and sign-in's device authorization).
extension TokenAuthError {
    // MARK: Refusals to compare with (`error == .invalidGrant`)

    /// `invalid_grant`: the refresh token, password or other grant is invalid, expired or revoked.
    public static let invalidGrant = rejected("invalid_grant")
    /// `invalid_client`: the client's authentication failed.
    public static let invalidClient = rejected("invalid_client")
    /// `unauthorized_client`: the client may not use this grant type.
    public static let unauthorizedClient = rejected("unauthorized_client")
    /// `unsupported_grant_type`: the server does not support this grant type.
    public static let unsupportedGrantType = rejected("unsupported_grant_type")
    /// `invalid_scope`: the requested scope is invalid, unknown or wider than the grant.
    public static let invalidScope = rejected("invalid_scope")

    /// The token endpoint's refusal with the OAuth error `code`: to compare with, and to script in test doubles.
    public static func rejected(_ code: String) -> TokenAuthError {
        TokenAuthError(
            .rejected, "The token endpoint refused the request with \(code).", fix: fix(forRefusal: code),
            oauthError: OAuthErrorResponse(error: code))
    }

    // MARK: Transient failures, to script in test doubles and to compare with

    /// The token endpoint reported a server problem (5xx): transient.
    public static let serverError = TokenAuthError(
        .serverError, "The token endpoint reported a server problem.", fix: "The tokens were kept; retry later.")
    /// The token endpoint is rate-limiting this client (429): transient.
    public static let rateLimited = TokenAuthError(
        .rateLimited, "The token endpoint is rate-limiting this client.", fix: "The tokens were kept; retry later.")
    /// The token endpoint did not answer in time: transient.
    public static let timedOut = TokenAuthError(
        .timedOut, "The token endpoint did not answer in time.",
        fix: "Check the network connection; the tokens were kept and the request can be retried.")
    /// The token endpoint's answer is not a token response: transient.
    public static let malformedResponse = TokenAuthError(
        .malformedResponse, "The token endpoint's answer is not a token response.",
        fix: "Check the token endpoint URL; the tokens were kept and the request can be retried.")

    // MARK: Answers of an OAuth endpoint

    /// The error for an OAuth error answer of `endpoint` (such as "the token endpoint").
    ///
    /// A 5xx status, or the codes `server_error` and `temporarily_unavailable`, make it ``Code/serverError`` and a
    /// 429 or `slow_down` ``Code/rateLimited`` — transient, whatever the body says; every other code is
    /// ``Code/rejected``: a refusal repeating cannot change.
    package static func refused(
        _ answer: OAuthErrorResponse, by endpoint: String, statusCode: Int?, retryAfter: Duration?
    ) -> TokenAuthError {
        let status = statusCode.map { " (HTTP \($0))" } ?? ""
        switch (statusCode ?? 0, answer.error) {
        case (429, _), (_, "slow_down"):
            return TokenAuthError(
                .rateLimited, "The \(endpoint) is rate-limiting this client\(status).", fix: "The tokens were kept; retry later.",
                oauthError: answer, retryAfter: retryAfter, statusCode: statusCode)
        case (500...599, _), (_, "server_error"), (_, "temporarily_unavailable"):
            return TokenAuthError(
                .serverError, "The \(endpoint) reported a server problem\(status) (\(answer.error)).",
                fix: "The tokens were kept; retry later.", oauthError: answer, retryAfter: retryAfter,
                statusCode: statusCode)
        default:
            return TokenAuthError(
                .rejected, "The \(endpoint) refused the request with \(answer.error)\(status).",
                fix: fix(forRefusal: answer.error), oauthError: answer, retryAfter: retryAfter, statusCode: statusCode)
        }
    }

    /// What to do about a refusal with the OAuth error `code`.
    private static func fix(forRefusal code: String) -> String {
        switch code {
        case "invalid_grant":
            "The refresh token or credentials are invalid, expired or revoked: sign in again."
        case "invalid_client":
            "Check the client ID, the client secret and the authentication method (none, client_secret_post or "
                + "client_secret_basic) registered at the authorization server."
        case "unauthorized_client":
            "Allow this grant type for the client at the authorization server, or use another grant."
        case "unsupported_grant_type":
            "The authorization server does not offer this grant type: use one it supports."
        case "invalid_scope":
            "Request a scope the server grants, or no scope to keep the one originally granted."
        case "unsupported_token_type":
            "The server does not revoke this kind of token; it stays valid until it expires."
        case "interaction_required", "consent_required", "login_required", "account_selection_required":
            // OpenID Connect Core §3.1.2.6; Microsoft answers refreshes so when multi-factor authentication or
            // consent became necessary (its AADSTS code is in the description and `error_codes`).
            "The provider needs the user at its sign-in page (a second factor, consent or a new sign-in): sign in again."
        case "invalid_request":
            "The server considers the request malformed: check the endpoint URL and the client configuration, and "
                + "report it if they are right."
        default:
            "Repeating the request will not help: check the client configuration or sign in again."
        }
    }

    /// The error for a non-2xx answer of `endpoint` without an OAuth error body.
    package static func unexpectedStatus(_ statusCode: Int, from endpoint: String, retryAfter: Duration?) -> TokenAuthError {
        switch statusCode {
        case 429:
            TokenAuthError(
                .rateLimited, "The \(endpoint) is rate-limiting this client (HTTP 429).",
                fix: "The tokens were kept; retry later.", retryAfter: retryAfter, statusCode: statusCode)
        case 500...599:
            TokenAuthError(
                .serverError, "The \(endpoint) reported a server problem (HTTP \(statusCode)).",
                fix: "The tokens were kept; retry later.", retryAfter: retryAfter, statusCode: statusCode)
        case 408:
            TokenAuthError(
                .timedOut, "The \(endpoint) did not answer in time (HTTP 408).",
                fix: "Check the network connection; the tokens were kept and the request can be retried.",
                retryAfter: retryAfter, statusCode: statusCode)
        default:
            malformed("it answered HTTP \(statusCode) without an OAuth error body", from: endpoint, statusCode: statusCode)
                .retrying(after: retryAfter)
        }
    }

    /// A ``Code/malformedResponse`` of `endpoint`, saying what is wrong with its answer.
    package static func malformed(_ detail: String, from endpoint: String, statusCode: Int? = nil) -> TokenAuthError {
        TokenAuthError(
            .malformedResponse, "The \(endpoint)'s answer cannot be used: \(detail).",
            fix: "Check that the URL points at the authorization server's \(endpoint); the tokens were kept and the "
                + "request can be retried.",
            statusCode: statusCode)
    }

    /// The failure of `endpoint` (at `host`) for a failure of the HTTP transport.
    package static func unreachable(_ endpoint: String, host: String, because error: any Error) -> TokenAuthError {
        let transport = error as? TokenAuthError
        switch transport?.code {
        case .timedOut?:
            return TokenAuthError(
                .timedOut, "The \(endpoint) (\(host)) did not answer in time.",
                fix: "Check the network connection; the tokens were kept and the request can be retried.",
                underlying: transport)
        case .responseTooLarge?:
            return malformed("its answer is larger than the limit", from: endpoint)
        case .invalidRequest?:
            return invalidClientConfiguration("the \(endpoint) URL cannot be requested")
        default:
            let cause = transport?.transportCause ?? (transport == nil ? "\(type(of: error))" : "the connection failed")
            return TokenAuthError(
                .networkFailure, "The \(endpoint) could not be reached (\(host): \(cause)).",
                fix: "Check the network connection and the endpoint URL; the tokens were kept and the request can "
                    + "be retried.",
                underlying: transport ?? error)
        }
    }

    /// The endpoint at `scheme://host` is not `https` and not on a loopback host: nothing was sent.
    package static func insecureEndpoint(_ endpoint: String, scheme: String, host: String) -> TokenAuthError {
        TokenAuthError(
            .insecureEndpoint, "Refused to send credentials to the \(endpoint) at \(scheme)://\(host) over plain HTTP.",
            fix: "Use an https:// URL; plain http is allowed only for loopback hosts (localhost, 127.0.0.0/8, ::1).")
    }

    /// The client cannot make the request: `detail` says why. Nothing was sent.
    package static func invalidClientConfiguration(_ detail: String) -> TokenAuthError {
        TokenAuthError(
            .invalidClientConfiguration, "The OAuth client cannot make this request: \(detail).",
            fix: "Fix the stored OAuth client: add the client secret or choose the authentication method none, or "
                + "record its endpoint.")
    }

    /// `endpoint` answered with a redirect to `location` (see `HTTPResponse.redirectLocation(from:secrets:)`).
    package static func redirected(_ endpoint: String, to location: String?, statusCode: Int) -> TokenAuthError {
        TokenAuthError(
            .redirected,
            location.map { "The \(endpoint) redirects to \($0) (HTTP \(statusCode)); the redirect was not followed." }
                ?? "The \(endpoint) answered with a redirect without a usable Location (HTTP \(statusCode)).",
            fix: (location == nil ? "Check the \(endpoint) URL" : "Use that URL as the \(endpoint)")
                + "; requests carrying credentials and tokens are never sent to a redirect's target.",
            statusCode: statusCode)
    }

    // MARK: HTTP

    /// The token endpoint could not be reached: transient.
    public static let networkFailure = TokenAuthError(
        .networkFailure, "The token endpoint could not be reached.",
        fix: "Check the network connection, the host name and any proxy; the tokens were kept and the request can be "
            + "retried.")

    /// The answer is not a valid HTTP response.
    package static let invalidResponse = TokenAuthError(
        .invalidResponse, "The server's answer is not a valid HTTP response.",
        fix: "Check that the URL points at an HTTP server.")

    /// The response body exceeded `limit` bytes.
    package static func responseTooLarge(limit: Int) -> TokenAuthError {
        TokenAuthError(
            .responseTooLarge, "The response body exceeded the limit of \(limit) bytes and was discarded.",
            fix: "The URL probably points at the wrong resource; raise the limit only if such large bodies are expected.")
    }

    /// The request cannot be sent: `detail` says why.
    package static func invalidRequest(_ detail: String) -> TokenAuthError {
        TokenAuthError(
            .invalidRequest, "The request cannot be sent: \(detail).", fix: "Send an absolute http or https URL, with the body as Data.")
    }
}
