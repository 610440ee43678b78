#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenAuth

/// Reads credentials that a person or script hands over as text, e.g. on `tokenctl import`'s standard input.
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
    /// - the stored JSON format, recognised by its `version` member (see TokenAuth's article "The keyring item");
    /// - an RFC 6749 §5.1 token response, whose relative `expires_in` counts from `receivedAt`;
    /// - a form-encoded token response, as GitHub sends it unless asked for JSON
    ///   (`access_token=…&scope=repo%2Cgist&token_type=bearer`);
    /// - a single line of RFC 6750 `b64token` characters, taken as a bare access token.
    ///
    /// Tokens with spaces, control or non-ASCII characters are refused: they end up in header fields.
    package static func parse(_ text: String, receivedAt: Date) throws(Failure) -> StoredCredentials {
        let trimmed = text.trimmingWhitespace
        if !trimmed.hasPrefix("{"), let fields = FormEncoding.fields(of: Data(trimmed.utf8)),
            fields["access_token"] != nil || fields["error"] != nil
        {
            return try tokenResponse(trimmed, receivedAt: receivedAt)
        }
        guard trimmed.hasPrefix("{") || trimmed.hasPrefix("[") || TokenSyntax.isB64Token(trimmed) else {
            throw Failure(reason: "it is neither JSON nor a bare access token (one line of letters, digits, "
                + "\"-._~+/\" and trailing \"=\", RFC 6750's b64token)")
        }
        if trimmed.hasPrefix("{"), !hasVersion(trimmed) {
            return try tokenResponse(trimmed, receivedAt: receivedAt)
        }
        do {
            let credentials = try StoredBundleFormat.decode(trimmed)
            let auth = credentials.auth
            guard TokenSyntax.isHeaderSafe(auth.accessToken), TokenSyntax.isHeaderSafe(auth.tokenType),
                auth.refreshToken.map({ $0.isEmpty || TokenSyntax.isHeaderSafe($0) }) ?? true
            else {
                throw Failure(reason: "its access_token, refresh_token or token_type contains spaces, control or "
                    + "non-ASCII characters")
            }
            return credentials
        } catch let error as Failure {
            throw error
        } catch let problem as StoredBundleFormat.Problem {
            throw Failure(reason: problem.reason)
        } catch {
            throw Failure(reason: "it could not be read")
        }
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

    private static func hasVersion(_ json: String) -> Bool {
        JSONValue.object(in: Data(json.utf8))?["version"] != nil
    }
}
