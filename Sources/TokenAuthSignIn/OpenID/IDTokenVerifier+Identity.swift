import Foundation
import HTTPTypes
import TokenAuth

/// Who signed in: the `id_token` of a sign-in or a refresh, and the UserInfo endpoint for a display name.
extension IDTokenVerifier {
    /// Validates the `id_token` of a sign-in's token response and returns who signed in.
    ///
    /// The display name is the token's `preferred_username`, `email` or `name`. When it has none and
    /// `userinfoEndpoint` is given, the UserInfo endpoint is asked with the response's access token. Policy:
    /// a UserInfo answer about another subject fails the sign-in (``SignInError/Code/userinfoSubjectMismatch``: the
    /// server contradicts itself about who signed in); any other UserInfo failure (unreachable, refused, not JSON)
    /// leaves the identity without a display name — the `id_token` alone proved who it is — and is logged at
    /// notice level. Call ``displayName(fromUserinfo:accessToken:subject:)`` yourself for a strict lookup.
    ///
    /// - Parameters:
    ///   - response: The token response of the sign-in (authorization code, device code or password grant).
    ///   - nonce: The nonce sent with the authorization request, or `nil` when none was sent.
    ///   - userinfoEndpoint: The issuer's UserInfo endpoint, e.g. ``AuthorizationServerMetadata/userinfoEndpoint``.
    /// - Throws: ``SignInError`` — ``SignInError/Code/missingIDToken`` when the response has no `id_token`.
    public func identity(from response: TokenResponse, nonce: String?, userinfoEndpoint: URL?) async throws -> Identity {
        guard let idToken = response.idToken else { throw SignInError.missingIDToken }
        let claims = try await verify(idToken, nonce: nonce)
        var displayName = claims.displayName
        if displayName == nil, let userinfoEndpoint {
            do {
                displayName = try await self.displayName(
                    fromUserinfo: userinfoEndpoint, accessToken: response.accessToken, subject: claims.subject)
            } catch let error as SignInError where error.code == .userinfoSubjectMismatch {
                throw error
            } catch let error as CancellationError {
                throw error
            } catch {
                logger.debug(
                    "UserInfo gave no display name; keeping the identity without one",
                    metadata: ["error": "\(LogRedaction.error(error))"])
            }
        }
        return Identity(issuer: issuerURL(of: claims), subject: claims.subject, displayName: displayName)
    }

    /// Validates the `id_token` of a refresh's token response against the identity stored before it.
    ///
    /// OpenID Connect Core §12.2: a refreshed `id_token` must name the same `iss` and `sub`. Without an
    /// `id_token` (servers may omit it on refresh) the previous identity is returned unchanged. With an
    /// ``issuerTemplate``, the same `iss` means the same tenant. No nonce is
    /// expected. The display name is the new token's, or the previous one when it has none; UserInfo is not asked.
    ///
    /// - Throws: ``SignInError`` — ``SignInError/Code/subjectChanged`` when the token is valid but for another account
    ///   (or `previous` is of another issuer than this verifier's).
    public func identity(afterRefresh response: TokenResponse, keeping previous: Identity) async throws -> Identity {
        guard let idToken = response.idToken else { return previous }
        guard tenantTemplate != nil || previous.issuer.absoluteString == issuer.absoluteString else {
            throw SignInError.subjectChanged("the stored identity is of another issuer than this verifier's")
        }
        let claims = try await verify(idToken, nonce: nil)
        guard claims.issuer == previous.issuer.absoluteString else {
            throw SignInError.subjectChanged("its iss names another tenant than the stored identity's")
        }
        guard claims.subject == previous.subject else {
            throw SignInError.subjectChanged("its sub is not the stored identity's")
        }
        return Identity(
            issuer: previous.issuer, subject: claims.subject, displayName: claims.displayName ?? previous.displayName)
    }

    /// Asks the UserInfo endpoint (OpenID Connect Core §5.3) for a display name: `preferred_username`, `email` or
    /// `name`, or `nil` when the answer has none.
    ///
    /// - Parameters:
    ///   - endpoint: The UserInfo endpoint; it must be `https` (or `http` on loopback), since it gets the token.
    ///   - accessToken: The access token of the sign-in, sent as a bearer token.
    ///   - subject: The `id_token`'s `sub`, which the answer's `sub` must equal.
    /// - Throws: ``SignInError`` — ``SignInError/Code/userinfoSubjectMismatch``, ``SignInError/Code/userinfoInvalid`` or
    ///   ``SignInError/Code/userinfoUnavailable``.
    public func displayName(fromUserinfo endpoint: URL, accessToken: String, subject: String) async throws -> String? {
        guard endpoint.canCarryCredentials else {
            throw SignInError.userinfoInvalid("refused to send the access token to \(endpoint.scheme ?? "?")://\(endpoint.host ?? "") over plain HTTP")
        }
        let request = HTTPRequest(
            method: .get, url: endpoint,
            headerFields: [.accept: "application/json", .authorization: "Bearer \(accessToken)"])
        let answer = try await Self.fetchDocument(
            UserinfoBody.self, with: request, transport: transport,
            failures: DocumentFailures(
                source: "it", refusal: "refused the request",
                unreadable: "answered with something other than a JSON object with a sub",
                unavailable: SignInError.userinfoUnavailable, unusable: SignInError.userinfoInvalid))
        guard answer.sub == subject else { throw SignInError.userinfoSubjectMismatch }
        return answer.preferredUsername ?? answer.email ?? answer.name
    }
}

/// The members of a UserInfo answer this library reads.
private struct UserinfoBody: Decodable {
    var sub: String
    var preferredUsername: String?
    var email: String?
    var name: String?

    private enum CodingKeys: String, CodingKey {
        case sub, email, name
        case preferredUsername = "preferred_username"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sub = try container.decode(String.self, forKey: .sub)
        preferredUsername = container.nonEmptyString(forKey: .preferredUsername)
        email = container.nonEmptyString(forKey: .email)
        name = container.nonEmptyString(forKey: .name)
    }
}
