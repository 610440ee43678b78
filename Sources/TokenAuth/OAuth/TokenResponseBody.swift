#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The members of a token response body (RFC 6749 §5.1 and §5.2) as received, each decoded leniently: a member
/// of the wrong type reads as absent, so one odd field cannot make a valid response unusable.
package struct TokenResponseBody: Decodable {
    package var accessToken: String?
    package var tokenType: String?
    package var refreshToken: String?
    /// Seconds, from a JSON number or a numeric string, clamped to 0…``TokenResponse/maximumLifetime``: a
    /// negative or zero `expires_in` is 0 (expired when the request was sent), a larger one the maximum. `nil` when
    /// absent, of another type, or not a finite number.
    package var expiresIn: TimeInterval?
    /// `refresh_token_expires_in` (GitHub's, for user tokens of GitHub Apps): seconds until the refresh token
    /// expires, read and clamped as `expires_in` is.
    package var refreshTokenExpiresIn: TimeInterval?
    package var scope: String?
    /// The OpenID Connect `id_token`, when the scope included `openid`.
    package var idToken: String?
    /// Whether an `error` member is present at all, whatever its type.
    package var hasError: Bool
    package var error: String?
    package var errorDescription: String?

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case refreshToken = "refresh_token"
        case expiresIn = "expires_in"
        case refreshTokenExpiresIn = "refresh_token_expires_in"
        case scope
        case idToken = "id_token"
        case error
        case errorDescription = "error_description"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = try? container.decodeIfPresent(String.self, forKey: .accessToken)
        tokenType = try? container.decodeIfPresent(String.self, forKey: .tokenType)
        refreshToken = try? container.decodeIfPresent(String.self, forKey: .refreshToken)
        scope = try? container.decodeIfPresent(String.self, forKey: .scope)
        idToken = try? container.decodeIfPresent(String.self, forKey: .idToken)
        hasError = container.contains(.error)
        error = try? container.decodeIfPresent(String.self, forKey: .error)
        errorDescription = try? container.decodeIfPresent(String.self, forKey: .errorDescription)

        expiresIn = container.lenientSeconds(forKey: .expiresIn).map {
            min(max($0, 0), TokenResponse.maximumLifetime.timeInterval)
        }
        refreshTokenExpiresIn = container.lenientSeconds(forKey: .refreshTokenExpiresIn).map {
            min(max($0, 0), TokenResponse.maximumLifetime.timeInterval)
        }
    }
}
