#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenAuth

/// Reads credentials that a person or script hands over as text, e.g. on `tokenctl import`'s standard input.
///
/// Text that is not what it claims to be is refused rather than read as something else: an impossible date
/// (`2030-02-30`) is no date, an `expires_in` that is no number is no "never expires", JSON `null` is no token, and
/// an endpoint that would send the tokens over plain HTTP is refused here, not at the first refresh.
package enum CredentialsImport {
    /// Why the text could not be imported. Never contains a token.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What is wrong with the input.
        package let reason: String

        /// What is wrong and what is accepted.
        package var description: String {
            "The input is not usable credentials: \(reason). Give the stored JSON format "
                + "({\"version\":1,\"access_token\":…}), an OAuth 2.0 token response ({\"access_token\":…,\"expires_in\":…}) "
                + "or a bare access token on one line."
        }
    }

    /// Parses one of the accepted forms:
    /// - the stored JSON format, recognised by its `version` member (see TokenAuth's article "The keyring item"),
    ///   whose dates must be RFC 3339 dates that exist and whose endpoints must be `https` (or `http` on a loopback
    ///   host);
    /// - an RFC 6749 §5.1 token response, whose relative `expires_in` counts from `receivedAt` and must be a number
    ///   or a numeric string (`null` counts as absent: no known expiry);
    /// - a form-encoded token response, as GitHub sends it unless asked for JSON
    ///   (`access_token=…&scope=repo%2Cgist&token_type=bearer`);
    /// - a single line of RFC 6750 `b64token` characters, taken as a bare access token — but not the JSON literals
    ///   `null`, `true` and `false` (what `jq -r .access_token` prints for an answer without one).
    ///
    /// JSON must be one object, with no comma before a closing `}` or `]` (RFC 8259 has none; Foundation's decoder
    /// takes one). Tokens with spaces, control or non-ASCII characters are refused: they end up in header fields.
    package static func parse(_ text: String, receivedAt: Date) throws(Failure) -> StoredCredentials {
        let trimmed = text.trimmingWhitespace
        // What a script pipes in when its variable is unset or empty (`echo "$TOKEN" | tokenctl import`).
        guard !trimmed.isEmpty else { throw Failure(reason: "it is empty") }
        if !trimmed.hasPrefix("{"), let fields = FormEncoding.fields(of: Data(trimmed.utf8)),
            fields["access_token"] != nil || fields["error"] != nil
        {
            try checkSeconds(in: fields.mapValues(JSONValue.string))
            return try tokenResponse(trimmed, receivedAt: receivedAt)
        }
        guard trimmed.hasPrefix("{") || trimmed.hasPrefix("[") else {
            guard TokenSyntax.isB64Token(trimmed) else {
                throw Failure(reason: "it is neither JSON nor a bare access token (one line of letters, digits, "
                    + "\"-._~+/\" and trailing \"=\", RFC 6750's b64token)")
            }
            guard !["null", "true", "false"].contains(trimmed) else {
                throw Failure(reason: "it is JSON \(trimmed), not a token (what `jq -r` prints for a missing member)")
            }
            return StoredCredentials(auth: Auth(accessToken: trimmed))
        }
        let members = try object(in: trimmed)
        guard members["version"] != nil else {
            try checkSeconds(in: members)
            return try tokenResponse(trimmed, receivedAt: receivedAt)
        }
        let credentials = try storedFormat(trimmed)
        try checkEndpoints(of: credentials.client)
        return credentials
    }

    /// The members of the JSON object `text` is; a failure for anything else, for a trailing comma included.
    private static func object(in text: String) throws(Failure) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch {
            throw Failure(reason: "it is not valid JSON")
        }
        guard case .object(let members) = value else { throw Failure(reason: "it is JSON but not an object") }
        guard !JSONTrailingComma.isPresent(in: text) else {
            throw Failure(reason: "it has a comma before a closing \"}\" or \"]\", which JSON does not allow")
        }
        return members
    }

    /// The stored format, with header-safe tokens.
    private static func storedFormat(_ text: String) throws(Failure) -> StoredCredentials {
        let credentials: StoredCredentials
        do {
            credentials = try StoredBundleFormat.decode(text)
        } catch {
            throw Failure(reason: error.reason)
        }
        let auth = credentials.auth
        guard TokenSyntax.isHeaderSafe(auth.accessToken), TokenSyntax.isHeaderSafe(auth.tokenType),
            auth.refreshToken.map({ $0.isEmpty || TokenSyntax.isHeaderSafe($0) }) ?? true
        else {
            throw Failure(reason: "its access_token, refresh_token or token_type contains spaces, control or "
                + "non-ASCII characters")
        }
        return credentials
    }

    /// A token response, JSON or form-encoded, as stored credentials.
    private static func tokenResponse(_ text: String, receivedAt: Date) throws(Failure) -> StoredCredentials {
        do {
            let response = try TokenResponse.parse(data: Data(text.utf8), sentAt: receivedAt)
            return StoredCredentials(auth: response.auth(updating: nil))
        } catch {
            let reason = error.oauthErrorCode.map { "it is an OAuth error response (\($0))" }
                ?? "it is not a token response (no usable \"access_token\")"
            throw Failure(reason: reason)
        }
    }

    /// Refuses an `expires_in` or `refresh_token_expires_in` that is neither a number nor a numeric string. A token
    /// endpoint's answer is read leniently — a quirk there must not lose a rotated refresh token — but text given
    /// to import can be fixed and given again, and would otherwise be stored as never expiring.
    private static func checkSeconds(in members: [String: JSONValue]) throws(Failure) {
        for name in ["expires_in", "refresh_token_expires_in"] {
            switch members[name] {
            case nil, .null?, .integer?, .number?: continue
            case .string(let text)? where Double(text.trimmingSpaces)?.isFinite == true: continue
            default: throw Failure(reason: "its \"\(name)\" is not a number of seconds")
            }
        }
    }

    /// Refuses an endpoint a refresh, a revocation or an identity check would send credentials to over the network
    /// unencrypted: each must be `https`, or `http` on a loopback host, as the refresh itself requires.
    private static func checkEndpoints(of client: OAuthClient?) throws(Failure) {
        guard let client else { return }
        let endpoints: [(String, URL?)] = [
            ("token_endpoint", client.tokenEndpoint), ("revocation_endpoint", client.revocationEndpoint),
            ("userinfo_endpoint", client.userinfoEndpoint), ("jwks_uri", client.jwksURI),
        ]
        for case let (name, url?) in endpoints where !url.canCarryCredentials {
            throw Failure(reason: "its \"\(name)\" is neither https nor http on a loopback host (\(url.scheme ?? "no scheme"))")
        }
    }
}
