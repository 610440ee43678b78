#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A successful token response (RFC 6749 §5.1), with the expiry turned into a date.
///
/// Its `description` never shows a token.
public struct TokenResponse: Sendable, Equatable {
    /// The largest token response accepted: 1 MiB. Real ones are a few kilobytes at most.
    public static let maximumSize = 1024 * 1024

    /// The longest access-token lifetime taken from `expires_in`: 10 years (365-day years). A longer one is clamped
    /// to it when the response is parsed.
    ///
    /// A provider that means "never expires" may send a huge number, and a hostile server could send `1e17` to
    /// push every date computed from the token's expiry past what the arithmetic and the stored format can hold —
    /// in every process that reads the item. No real token lives ten years, so no real expiry is shortened.
    public static let maximumLifetime = Duration.seconds(10 * 365 * 24 * 3600)

    /// The new access token.
    public var accessToken: String
    /// The token type, with `bearer` in any case normalised to `Bearer` (types are case-insensitive, §5.1).
    public var tokenType: String
    /// The new refresh token, or `nil` when the server issued none — then the previous one stays valid (§6).
    public var refreshToken: String?
    /// When the access token expires: `expires_in` counted from when the request was sent, so the time the
    /// request spent in flight is not added to the token's life. `nil` when the server did not say. Never before
    /// ``issuedAt`` nor more than ``maximumLifetime`` after it, when parsed from a response.
    public var expiresAt: Date?
    /// The granted scope, space-separated, or `nil` when the response did not say (then it is the requested one,
    /// §5.1). A parsed answer's comma-separated scope, as GitHub writes it (`repo,gist`), reads as `repo gist`.
    public var scope: String?
    /// When the request that obtained these tokens was sent: the start of the access token's lifetime as this client
    /// can know it. `nil` when unknown.
    public var issuedAt: Date?
    /// The OpenID Connect `id_token` (a signed JWT saying who signed in), when the scope included `openid`;
    /// `nil` when the response had none, or an empty one.
    ///
    /// Unvalidated as received: `IDTokenVerifier` checks it. It is a credential: never shown in ``description``,
    /// never logged, and not stored (only the ``Identity`` validated from it is).
    public var idToken: String?
    /// When the refresh token expires, when the server said (`refresh_token_expires_in`, as GitHub does for the user
    /// tokens of GitHub Apps); `nil` when it did not.
    public var refreshTokenExpiresAt: Date?

    /// Creates a token response.
    public init(
        accessToken: String,
        tokenType: String = "Bearer",
        refreshToken: String? = nil,
        expiresAt: Date? = nil,
        scope: String? = nil,
        issuedAt: Date? = nil,
        idToken: String? = nil,
        refreshTokenExpiresAt: Date? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scope = scope
        self.issuedAt = issuedAt
        self.idToken = idToken
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
    }

    /// Parses the JSON body of a token response, without any network request — for example one that a user
    /// pastes into `tokenctl import`.
    ///
    /// - `expires_in` may be a number (fractions are kept) or a numeric string such as `"3599"`. It is clamped to
    ///   0…``maximumLifetime``: zero or negative means the token expired when the request was sent (so it is
    ///   refreshed before use), and a larger number means ten years. Absent, `null`, or not a finite number means no
    ///   known expiry, so a quirk in that field never discards the tokens (with rotation, the new refresh token
    ///   would be lost for good).
    /// - `token_type` is compared case-insensitively; absent means `Bearer`.
    /// - `access_token`, `refresh_token` and `token_type` must be visible ASCII without spaces, since they end up in
    ///   header fields: anything else is a malformed response.
    /// - An `error` member makes it an error response (§5.2), even when it came with status 200.
    ///
    /// - Parameters:
    ///   - data: The response body, at most ``maximumSize`` bytes.
    ///   - sentAt: When the request was sent; `expires_in` counts from here.
    /// - Throws: ``TokenAuthError``: the server's refusal for an error response (``TokenAuthError/Code/rejected``), or
    ///   ``TokenAuthError/Code/malformedResponse`` when the body is not a token response.
    public static func parse(data: Data, sentAt: Date) throws(TokenAuthError) -> TokenResponse {
        try parse(data: data, sentAt: sentAt, statusCode: nil, secrets: [])
    }

    /// `data`, or the JSON object of its fields when it is a form-encoded answer — what GitHub's token endpoint sends
    /// unless asked for JSON (`access_token=…&scope=repo%2Cgist&token_type=bearer`) — with `access_token` or
    /// `error`. Every member is then a string; numbers such as `expires_in` are read from strings as well.
    private static func jsonObject(of data: Data) -> Data {
        guard data.first(where: { !$0.isASCIIWhitespace }) != UInt8(ascii: "{"),
            let fields = FormEncoding.fields(of: data), fields["access_token"] != nil || fields["error"] != nil,
            let json = try? JSONEncoder().encode(fields)
        else { return data }
        return json
    }

    /// Parses a response body as ``parse(data:sentAt:)`` does, attaching `statusCode` to errors and redacting
    /// `secrets` from server-supplied text.
    static func parse(data: Data, sentAt: Date, statusCode: Int?, secrets: [String]) throws(TokenAuthError) -> TokenResponse {
        guard data.count <= maximumSize else {
            throw .malformed("its answer is larger than 1 MiB", from: "token endpoint", statusCode: statusCode)
        }
        let data = jsonObject(of: data)
        let body: TokenResponseBody
        do {
            body = try JSONDecoder().decode(TokenResponseBody.self, from: data)
        } catch {
            throw .malformed("its answer is not a JSON object", from: "token endpoint", statusCode: statusCode)
        }
        if body.hasError {
            guard let code = body.error, !code.isEmpty else {
                throw .malformed(
                    "its answer has an error member that is not a string", from: "token endpoint", statusCode: statusCode)
            }
            let answer = OAuthErrorResponse.parse(data, secrets: secrets) ?? OAuthErrorResponse(
                error: code, errorDescription: body.errorDescription, errorURI: nil, extras: [:], secrets: secrets)
            throw .refused(answer, by: "token endpoint", statusCode: statusCode, retryAfter: nil)
        }
        guard let accessToken = body.accessToken, !accessToken.isEmpty else {
            throw .malformed("its answer has no access_token", from: "token endpoint", statusCode: statusCode)
        }
        let refreshToken = body.refreshToken.flatMap { $0.isEmpty ? nil : $0 }
        // They end up in header fields, where a space or control character would change or add to the header.
        for (name, value) in [("access_token", accessToken), ("refresh_token", refreshToken), ("token_type", body.tokenType)] {
            if let value, !TokenSyntax.isHeaderSafe(value) {
                throw .malformed(
                    "its \(name) contains spaces, control or non-ASCII characters", from: "token endpoint",
                    statusCode: statusCode)
            }
        }
        return TokenResponse(
            accessToken: accessToken,
            tokenType: TokenType.normalize(body.tokenType ?? "Bearer"),
            refreshToken: refreshToken,
            expiresAt: body.expiresIn.map { sentAt.addingTimeInterval($0) },
            scope: Self.spaceSeparated(body.scope),
            issuedAt: sentAt,
            idToken: body.idToken.flatMap { $0.isEmpty ? nil : $0 },
            refreshTokenExpiresAt: refreshToken == nil ? nil : body.refreshTokenExpiresIn.map { sentAt.addingTimeInterval($0) }
        )
    }

    /// `scope` with commas read as separators (GitHub's `repo,gist`), or `nil` when it names no scope.
    static func spaceSeparated(_ scope: String?) -> String? {
        guard let scope else { return nil }
        let items = scope.split(whereSeparator: { $0 == " " || $0 == "," })
        return items.isEmpty ? nil : items.joined(separator: " ")
    }

    /// The token bundle after this response, given the one it replaces.
    ///
    /// Without a new refresh token the previous one is kept (RFC 6749 §6: the server may keep it valid); without
    /// a scope the previous scope is kept (§5.1: the scope is omitted when unchanged). Dropping either would turn
    /// a routine refresh into a forced sign-in. The previous ``Auth/identity`` is kept too: a new `id_token`
    /// changes it only once validated (`IDTokenVerifier.identity(afterRefresh:keeping:)`). So is its
    /// ``Auth/proofKey``: the refresh was sent with a proof from it, and binds the new tokens to it.
    public func auth(updating previous: Auth?) -> Auth {
        Auth(
            accessToken: accessToken,
            tokenType: tokenType,
            refreshToken: refreshToken ?? previous?.refreshToken,
            expiresAt: expiresAt,
            scope: scope ?? previous?.scope,
            issuedAt: issuedAt,
            identity: previous?.identity,
            // The expiry belongs to the refresh token: a new one brings its own (or none), a kept one keeps its own.
            refreshTokenExpiresAt: refreshToken == nil ? previous?.refreshTokenExpiresAt : refreshTokenExpiresAt,
            // The key of the refresh that brought these tokens: the one they are bound to.
            proofKey: previous?.proofKey
        )
    }
}

extension TokenResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// A description with every token redacted.
    public var description: String {
        var parts = ["tokenType: \(tokenType)", "accessToken: <redacted>"]
        parts.append("refreshToken: \(refreshToken == nil ? "none" : "<redacted>")")
        if let expiresAt { parts.append("expiresAt: \(expiresAt.formatted(.iso8601))") }
        if let scope { parts.append("scope: \(scope)") }
        if idToken != nil { parts.append("idToken: <redacted>") }
        return "TokenResponse(\(parts.joined(separator: ", ")))"
    }

    /// The same redacted text as ``description``.
    public var debugDescription: String { description }
}
