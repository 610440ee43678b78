#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes

/// Decides whether a response means "the access token was rejected": the one answer that makes
/// ``AuthorizedClient`` refresh the token and send the request again.
///
/// The decision is deliberately narrow. Refreshing on the wrong answers costs a token-endpoint round trip at best
/// and, at worst, a refresh loop: a resource that answers every request with 401 for a reason the token cannot fix
/// would otherwise make each request spend a refresh token. The client bounds the damage anyway (one refresh and
/// one retry per request), but a precise classifier avoids even that.
///
/// The ``standard`` classifier follows RFC 6750 §3.1. For APIs that say it differently, for example with a JSON
/// body `{"errors":["invalid_token"]}`, combine it with ``jsonErrorBody(field:codes:statuses:)``:
///
/// ```swift
/// let client = AuthorizedClient(
///     manager: manager, transport: transport,
///     classifier: .standard.or(.jsonErrorBody(field: "errors", codes: ["invalid_token"])))
/// ```
///
/// Whatever the classifier says, a `403` whose `Bearer` challenge says `insufficient_scope` is a permission
/// error and is never refreshed: a new token has the same scope.
public struct TokenRejectionClassifier: Sendable {
    private let decide: @Sendable (HTTPResponse, Data) -> Bool

    /// Creates a classifier from a decision.
    ///
    /// - Parameter isTokenRejected: Whether `response` (with `body`) says the access token was rejected.
    ///   ``AuthorizedClient`` passes the complete body. The OpenAPI middleware collects and passes the bodies of
    ///   non-2xx responses only, and an empty body for 2xx ones.
    public init(_ isTokenRejected: @escaping @Sendable (_ response: HTTPResponse, _ body: Data) -> Bool) {
        decide = isTokenRejected
    }

    /// Whether `response` says the access token was rejected.
    public func isTokenRejected(_ response: HTTPResponse, body: Data) -> Bool {
        decide(response, body)
    }

    /// A classifier that says "rejected" when this one or `other` does.
    public func or(_ other: TokenRejectionClassifier) -> TokenRejectionClassifier {
        TokenRejectionClassifier { response, body in
            self.isTokenRejected(response, body: body) || other.isTokenRejected(response, body: body)
        }
    }

    /// RFC 6750 §3.1: a `401` with a `Bearer` challenge — or a `DPoP` one (RFC 9449 §7.1) — whose `error` is
    /// `invalid_token` or absent, or a `401` without any challenge. Never any other status, so never a `403`.
    ///
    /// A `401` whose `Bearer` challenge names another error (`invalid_request`) is a malformed request that a new
    /// token does not fix; a `401` with only a non-`Bearer` challenge asks for credentials this client does not
    /// have. Both are returned to the caller as they are.
    public static let standard = TokenRejectionClassifier { response, _ in
        guard response.status == .unauthorized else { return false }
        let challenges = AuthenticationChallenge.challenges(in: response)
        guard !challenges.isEmpty else { return true }
        return challenges.contains { challenge in
            (challenge.hasScheme("Bearer") || challenge.hasScheme("DPoP"))
                && (challenge.error == nil || challenge.error == "invalid_token")
        }
    }

    /// Recognises a JSON error body naming a rejected token, such as `{"errors":["invalid_token"]}` or
    /// `{"error":"token_expired"}`.
    ///
    /// - Parameters:
    ///   - field: The top-level member holding the error code: a string or an array of strings.
    ///   - codes: The codes that mean the token was rejected.
    ///   - statuses: The statuses whose bodies are looked at; other responses are never rejections. The default
    ///     is `401` and `400` (some APIs answer a bad token with 400).
    public static func jsonErrorBody(
        field: String = "errors",
        codes: Set<String> = ["invalid_token"],
        statuses: Set<Int> = [400, 401]
    ) -> TokenRejectionClassifier {
        TokenRejectionClassifier { response, body in
            guard statuses.contains(response.status.code), !body.isEmpty,
                  let object = JSONValue.object(in: body) else { return false }
            switch object[field] {
            case .string(let code)?: return codes.contains(code)
            case .array(let list)?: return list.contains { $0.string.map(codes.contains) ?? false }
            default: return false
            }
        }
    }
}
