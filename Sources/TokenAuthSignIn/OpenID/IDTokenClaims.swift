import Foundation
import JWTKit
import TokenAuth

/// The claims of an `id_token` that ``IDTokenVerifier`` validated (OpenID Connect Core §2, §5.1).
///
/// Only what this library uses is kept: the token itself never is.
public struct IDTokenClaims: Sendable, Equatable {
    /// `iss`: the issuer identifier, exactly as in the token.
    public var issuer: String
    /// `sub`: the account's stable identifier at the issuer.
    public var subject: String
    /// `aud`: the audiences, one of which is the client id.
    public var audiences: [String]
    /// `azp`: the authorized party, when present.
    public var authorizedParty: String?
    /// `exp`.
    public var expiresAt: Date
    /// `iat`.
    public var issuedAt: Date
    /// `nonce`, when present.
    public var nonce: String?
    /// `preferred_username`, when present and not empty.
    public var preferredUsername: String?
    /// `email`, when present and not empty.
    public var email: String?
    /// `name`, when present and not empty.
    public var name: String?
    /// `tid`: the tenant the account belongs to (Microsoft), when present and not empty; a `{tenantid}` template
    /// issuer is filled with it.
    public var tenantID: String?

    /// The name to show a person: `preferred_username`, else `email`, else `name`; `nil` when none is present.
    public var displayName: String? {
        preferredUsername ?? email ?? name
    }

    /// The claims of a decoded payload: the required ones (`iss`, `sub`, `aud`, `exp`, `iat`) must be present with
    /// the right type; the others read as absent when missing, empty or of another type.
    fileprivate init(_ container: KeyedDecodingContainer<IDTokenPayload.CodingKeys>) throws {
        issuer = try container.decode(String.self, forKey: .iss)
        subject = try container.decode(String.self, forKey: .sub)
        audiences = try container.decode(AudienceClaim.self, forKey: .aud).value
        expiresAt = try container.decode(ExpirationClaim.self, forKey: .exp).value
        issuedAt = try container.decode(IssuedAtClaim.self, forKey: .iat).value
        authorizedParty = container.nonEmptyString(forKey: .azp)
        nonce = container.nonEmptyString(forKey: .nonce)
        preferredUsername = container.nonEmptyString(forKey: .preferredUsername)
        email = container.nonEmptyString(forKey: .email)
        name = container.nonEmptyString(forKey: .name)
        tenantID = container.nonEmptyString(forKey: .tid)
    }
}

/// An `id_token`'s payload as jwt-kit decodes it: its claims, read straight into ``IDTokenClaims``.
///
/// ``verify(using:)`` checks nothing: ``IDTokenVerifier`` checks the claims against its injected wall clock.
struct IDTokenPayload: JWTPayload {
    let claims: IDTokenClaims

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, azp, nonce, email, name, tid
        case preferredUsername = "preferred_username"
    }

    init(from decoder: any Decoder) throws {
        claims = try IDTokenClaims(decoder.container(keyedBy: CodingKeys.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(claims.issuer, forKey: .iss)
        try container.encode(claims.subject, forKey: .sub)
        try container.encode(AudienceClaim(value: claims.audiences), forKey: .aud)
        try container.encode(ExpirationClaim(value: claims.expiresAt), forKey: .exp)
        try container.encode(IssuedAtClaim(value: claims.issuedAt), forKey: .iat)
        try container.encodeIfPresent(claims.authorizedParty, forKey: .azp)
        try container.encodeIfPresent(claims.nonce, forKey: .nonce)
        try container.encodeIfPresent(claims.preferredUsername, forKey: .preferredUsername)
        try container.encodeIfPresent(claims.email, forKey: .email)
        try container.encodeIfPresent(claims.name, forKey: .name)
        try container.encodeIfPresent(claims.tenantID, forKey: .tid)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Any JSON object as a payload: for reading a token's header before anything about it is trusted.
struct HeaderProbe: JWTPayload {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
