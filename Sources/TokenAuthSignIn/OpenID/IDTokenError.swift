import TokenAuth
/// Why an OpenID Connect `id_token` (or the identity built from it) was not accepted.
///
/// - **Transient** (``isTransient``): the issuer's key set could not be fetched just now (``jwksUnavailable``), or
///   lacks the token's key but was fetched too recently to fetch again (``keyNotYetFetched``), or
///   the UserInfo endpoint could not be used just now (``userinfoUnavailable``). Trying again later may succeed.
/// - **Permanent** (``isPermanent``): everything else — the token is missing, malformed, unsigned or signed with
///   an algorithm or key that is not accepted, or its claims say it is for another issuer, client, nonce or time;
///   a refresh answered for another account (``subjectChanged``); the key set or UserInfo endpoint is configured
///   so that it cannot be used. The token must not be trusted, and asking again with the same token cannot help.
///
/// Compare ``code`` with the static members of ``Code`` (`error.code == .expired`), or the error itself with the
/// static members (`error == .expired`); equality looks at the kind of failure only. No description contains the
/// token, and claims are quoted only when they identify a party (issuer, audience), never a nonce.
public struct IDTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
        case missingIDToken
        case malformed
        case unsupportedAlgorithm
        case unknownKey
        case keyNotYetFetched
        case badSignature
        case wrongIssuer
        case wrongAudience
        case wrongAuthorizedParty
        case expired
        case issuedInFuture
        case nonceMismatch
        case subjectChanged
        case jwksUnavailable
        case jwksMisconfigured
        case userinfoUnavailable
        case userinfoInvalid
        case userinfoSubjectMismatch
    }

    /// The kind of failure (see `ErrorCode`).
    public var code: Code { Code(kind.rawValue) }

    /// The kind of an ``IDTokenError``.
    public typealias Code = ErrorCode<IDTokenError>

    private let kind: Kind
    /// The HTTP status of the answer behind a key-set or UserInfo failure, when there was one.
    public let statusCode: Int?
    /// What went wrong in our own words; never contains a token or a nonce.
    private let detail: String?

    private init(_ kind: Kind, statusCode: Int? = nil, detail: String? = nil) {
        self.kind = kind
        self.statusCode = statusCode
        self.detail = detail
    }

    // MARK: - The token

    /// The token response has no `id_token`, although the scope asked for `openid`.
    public static let missingIDToken = IDTokenError(.missingIDToken)
    /// The `id_token` is not a JWS compact serialization with a JSON header and claims, or a required claim
    /// (`iss`, `sub`, `aud`, `exp`, `iat`) is missing or of the wrong type.
    public static let malformed = IDTokenError(.malformed)
    /// The `id_token` is unsigned (`alg` `none`), MAC'ed with a shared secret (`HS256` …), or uses an algorithm
    /// this library does not accept. Accepted: RS256/384/512, PS256/384/512, ES256/384/512 and EdDSA.
    public static let unsupportedAlgorithm = IDTokenError(.unsupportedAlgorithm)
    /// The `id_token` names a key (`kid`) that the issuer's key set does not have, even after fetching it again.
    public static let unknownKey = IDTokenError(.unknownKey)
    /// The `id_token` names a key the issuer's key set lacked when it was fetched, too recently to fetch it again
    /// (``IDTokenVerifier/minimumRefetchInterval``): transient, since the issuer may have just added the key.
    public static let keyNotYetFetched = IDTokenError(.keyNotYetFetched)
    /// The signature does not verify with the issuer's key.
    public static let badSignature = IDTokenError(.badSignature)
    /// The `iss` claim is not exactly the expected issuer.
    public static let wrongIssuer = IDTokenError(.wrongIssuer)
    /// The `aud` claim does not contain the client id, or names other audiences without an `azp`.
    public static let wrongAudience = IDTokenError(.wrongAudience)
    /// The `azp` claim is present and is not the client id.
    public static let wrongAuthorizedParty = IDTokenError(.wrongAuthorizedParty)
    /// The `exp` claim is in the past (beyond the allowed clock skew).
    public static let expired = IDTokenError(.expired)
    /// The `iat` claim is in the future (beyond the allowed clock skew).
    public static let issuedInFuture = IDTokenError(.issuedInFuture)
    /// A nonce was sent with the authorization request, and the `id_token` carries another one or none.
    public static let nonceMismatch = IDTokenError(.nonceMismatch)
    /// A refresh returned an `id_token` for another account: its `iss` or `sub` is not the stored identity's.
    public static let subjectChanged = IDTokenError(.subjectChanged)

    // MARK: - The key set

    /// The key set (`jwks_uri`) could not be fetched just now: no answer, no answer in time, 5xx, 408 or 429.
    public static let jwksUnavailable = IDTokenError(.jwksUnavailable)
    /// The key set cannot be used as configured: `jwks_uri` missing or not `https` (or `http` on loopback), a
    /// redirect, another 4xx answer, a document that is not a JWK Set or has no usable signing key, or one
    /// larger than ``IDTokenVerifier/maximumDocumentSize``.
    public static let jwksMisconfigured = IDTokenError(.jwksMisconfigured)

    // MARK: - UserInfo

    /// The UserInfo endpoint could not be used just now: no answer, no answer in time, 5xx, 408 or 429.
    public static let userinfoUnavailable = IDTokenError(.userinfoUnavailable)
    /// The UserInfo endpoint refused the access token, redirected, is not `https` (or `http` on loopback), or
    /// answered with something that is not a JSON object.
    public static let userinfoInvalid = IDTokenError(.userinfoInvalid)
    /// The UserInfo response is about another subject than the `id_token`: it must not be used (OpenID Connect
    /// Core §5.3.2), and the server contradicts itself about who signed in.
    public static let userinfoSubjectMismatch = IDTokenError(.userinfoSubjectMismatch)

    // MARK: - Classification

    /// Whether trying again later may succeed without any change.
    public var isTransient: Bool { kind == .jwksUnavailable || kind == .userinfoUnavailable || kind == .keyNotYetFetched }

    /// Whether the token (or the configuration) must change before anything can succeed.
    public var isPermanent: Bool { !isTransient }

    /// Two errors are equal when they are the same kind of failure.
    public static func == (lhs: IDTokenError, rhs: IDTokenError) -> Bool {
        lhs.kind == rhs.kind
    }

    // MARK: - Construction

    static func malformed(_ detail: String) -> IDTokenError { IDTokenError(.malformed, detail: detail) }
    static func unsupportedAlgorithm(_ alg: String?) -> IDTokenError {
        IDTokenError(.unsupportedAlgorithm, detail: alg.map { "\"\(sanitize($0))\"" } ?? "no alg")
    }
    static func unknownKey(_ kid: String) -> IDTokenError { IDTokenError(.unknownKey, detail: "\"\(sanitize(kid))\"") }
    static func keyNotYetFetched(_ kid: String) -> IDTokenError {
        IDTokenError(.keyNotYetFetched, detail: "\"\(sanitize(kid))\"")
    }
    static func badSignature(_ detail: String) -> IDTokenError { IDTokenError(.badSignature, detail: detail) }
    static func wrongIssuer(expected: String, found: String) -> IDTokenError {
        IDTokenError(.wrongIssuer, detail: "it names \"\(sanitize(found))\", not \"\(expected)\"")
    }
    static func wrongAudience(_ detail: String) -> IDTokenError { IDTokenError(.wrongAudience, detail: detail) }
    static func wrongAuthorizedParty(_ found: String) -> IDTokenError {
        IDTokenError(.wrongAuthorizedParty, detail: "\"\(sanitize(found))\"")
    }
    static func expired(_ detail: String) -> IDTokenError { IDTokenError(.expired, detail: detail) }
    static func issuedInFuture(_ detail: String) -> IDTokenError { IDTokenError(.issuedInFuture, detail: detail) }
    static func nonceMismatch(_ detail: String) -> IDTokenError { IDTokenError(.nonceMismatch, detail: detail) }
    static func subjectChanged(_ detail: String) -> IDTokenError { IDTokenError(.subjectChanged, detail: detail) }
    static func jwksUnavailable(statusCode: Int? = nil, _ detail: String) -> IDTokenError {
        IDTokenError(.jwksUnavailable, statusCode: statusCode, detail: detail)
    }
    static func jwksMisconfigured(statusCode: Int? = nil, _ detail: String) -> IDTokenError {
        IDTokenError(.jwksMisconfigured, statusCode: statusCode, detail: detail)
    }
    static func userinfoUnavailable(statusCode: Int? = nil, _ detail: String) -> IDTokenError {
        IDTokenError(.userinfoUnavailable, statusCode: statusCode, detail: detail)
    }
    static func userinfoInvalid(statusCode: Int? = nil, _ detail: String) -> IDTokenError {
        IDTokenError(.userinfoInvalid, statusCode: statusCode, detail: detail)
    }

    /// Claim text made safe to show: printable ASCII, at most 200 characters.
    static func sanitize(_ text: String) -> String {
        TokenAuthError.sanitize(text, secrets: [], limit: 200)
    }

    // MARK: - Description

    /// What happened and how to fix it, written for a person.
    public var description: String {
        summary + " " + fix
    }

    private var statusText: String {
        statusCode.map { " (HTTP \($0))" } ?? ""
    }

    private var detailText: String {
        detail.map { ": \($0)" } ?? ""
    }

    var summary: String {
        switch kind {
        case .missingIDToken:
            return "The token response has no id_token, although the scope includes openid."
        case .malformed:
            return "The id_token is malformed\(detailText)."
        case .unsupportedAlgorithm:
            return "The id_token's signature algorithm is not accepted\(detailText)."
        case .unknownKey:
            return "The id_token is signed with a key the issuer does not publish\(detailText)."
        case .keyNotYetFetched:
            return "The id_token is signed with a key the issuer's key set lacked when it was last fetched, too "
                + "recently to fetch it again\(detailText)."
        case .badSignature:
            return "The id_token's signature does not verify\(detailText)."
        case .wrongIssuer:
            return "The id_token is from another issuer\(detailText)."
        case .wrongAudience:
            return "The id_token is not for this client\(detailText)."
        case .wrongAuthorizedParty:
            return "The id_token was issued to another party (azp)\(detailText)."
        case .expired:
            return "The id_token has expired\(detailText)."
        case .issuedInFuture:
            return "The id_token is issued in the future\(detailText)."
        case .nonceMismatch:
            return "The id_token does not carry the nonce of this sign-in\(detailText)."
        case .subjectChanged:
            return "A refresh returned an id_token for another account\(detailText); its tokens were not used."
        case .jwksUnavailable:
            return "The issuer's signing keys could not be fetched just now\(statusText)\(detailText)."
        case .jwksMisconfigured:
            return "The issuer's signing keys cannot be used\(statusText)\(detailText)."
        case .userinfoUnavailable:
            return "The UserInfo endpoint could not be used just now\(statusText)\(detailText)."
        case .userinfoInvalid:
            return "The UserInfo endpoint's answer cannot be used\(statusText)\(detailText)."
        case .userinfoSubjectMismatch:
            return "The UserInfo endpoint answered for another subject than the id_token\(detailText)."
        }
    }

    /// What to do about it.
    public var fix: String {
        switch kind {
        case .missingIDToken:
            return "Check that the client is allowed the openid scope at the provider."
        case .malformed, .unsupportedAlgorithm, .badSignature, .unknownKey:
            return "Sign in again; if it persists, check the issuer URL and the provider's signing configuration "
                + "(an id_token must be signed with an asymmetric key from its jwks_uri)."
        case .wrongIssuer:
            return "Use exactly the issuer identifier the provider puts in its id_tokens."
        case .wrongAudience, .wrongAuthorizedParty:
            return "Check the client id: the id_token must be issued to this client."
        case .expired, .issuedInFuture:
            return "Check that this computer's clock is right, then sign in again."
        case .nonceMismatch:
            return "Start the sign-in again; an id_token from another sign-in must not be accepted."
        case .subjectChanged:
            return "Sign in again, as the account you mean to use."
        case .jwksUnavailable, .userinfoUnavailable:
            return "Check the network connection and retry later."
        case .keyNotYetFetched:
            return "Retry in a minute, when the key set may be fetched again."
        case .jwksMisconfigured:
            return "Check the issuer's jwks_uri: it must be an https URL (http only on loopback) that serves a JWK "
                + "Set with the provider's signing keys."
        case .userinfoInvalid:
            return "Check the userinfo_endpoint and that the access token is allowed to read it (scope openid)."
        case .userinfoSubjectMismatch:
            return "Do not trust this provider's answers until it is fixed; sign in again."
        }
    }
}

extension ErrorCode where Domain == IDTokenError {
    /// No `id_token` in a response to a request with the `openid` scope.
    public static let missingIDToken = Self("missingIDToken")
    /// Not a JWS with JSON header and claims, or a required claim missing.
    public static let malformed = Self("malformed")
    /// `none`, an HMAC algorithm, or another algorithm not accepted.
    public static let unsupportedAlgorithm = Self("unsupportedAlgorithm")
    /// The `kid` is not in the issuer's key set, even after fetching it again.
    public static let unknownKey = Self("unknownKey")
    /// The `kid` is not in a key set fetched too recently to fetch again: transient.
    public static let keyNotYetFetched = Self("keyNotYetFetched")
    /// The signature does not verify.
    public static let badSignature = Self("badSignature")
    /// `iss` is not the expected issuer.
    public static let wrongIssuer = Self("wrongIssuer")
    /// `aud` does not name this client (alone, or with an `azp`).
    public static let wrongAudience = Self("wrongAudience")
    /// `azp` names another client.
    public static let wrongAuthorizedParty = Self("wrongAuthorizedParty")
    /// `exp` is past.
    public static let expired = Self("expired")
    /// `iat` is in the future.
    public static let issuedInFuture = Self("issuedInFuture")
    /// The nonce is not the one sent.
    public static let nonceMismatch = Self("nonceMismatch")
    /// A refreshed `id_token` names another `iss` or `sub`.
    public static let subjectChanged = Self("subjectChanged")
    /// The key set could not be fetched just now: transient.
    public static let jwksUnavailable = Self("jwksUnavailable")
    /// The key set cannot be used as configured.
    public static let jwksMisconfigured = Self("jwksMisconfigured")
    /// The UserInfo endpoint could not be used just now: transient.
    public static let userinfoUnavailable = Self("userinfoUnavailable")
    /// The UserInfo answer cannot be used.
    public static let userinfoInvalid = Self("userinfoInvalid")
    /// The UserInfo answer is about another subject.
    public static let userinfoSubjectMismatch = Self("userinfoSubjectMismatch")
}
