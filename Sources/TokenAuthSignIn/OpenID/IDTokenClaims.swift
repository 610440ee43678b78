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

    /// The name to show a person: `preferred_username`, else `email`, else `name`; `nil` when none is present.
    public var displayName: String? {
        preferredUsername ?? email ?? name
    }

    init(_ payload: IDTokenPayload) {
        issuer = payload.iss
        subject = payload.sub
        audiences = payload.aud.value
        authorizedParty = payload.azp
        expiresAt = payload.exp.value
        issuedAt = payload.iat.value
        nonce = payload.nonce
        preferredUsername = payload.preferredUsername
        email = payload.email
        name = payload.name
    }
}

/// The `id_token` claims as jwt-kit decodes them. The required ones (`iss`, `sub`, `aud`, `exp`, `iat`) must be
/// present with the right type; the others read as absent when missing, empty or of another type.
///
/// ``verify(using:)`` checks nothing: ``IDTokenVerifier`` checks the claims against its injected wall clock.
struct IDTokenPayload: JWTPayload {
    var iss: String
    var sub: String
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var azp: String?
    var nonce: String?
    var preferredUsername: String?
    var email: String?
    var name: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, azp, nonce, email, name
        case preferredUsername = "preferred_username"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decode(String.self, forKey: .iss)
        sub = try container.decode(String.self, forKey: .sub)
        aud = try container.decode(AudienceClaim.self, forKey: .aud)
        exp = try container.decode(ExpirationClaim.self, forKey: .exp)
        iat = try container.decode(IssuedAtClaim.self, forKey: .iat)
        azp = container.nonEmptyString(forKey: .azp)
        nonce = container.nonEmptyString(forKey: .nonce)
        preferredUsername = container.nonEmptyString(forKey: .preferredUsername)
        email = container.nonEmptyString(forKey: .email)
        name = container.nonEmptyString(forKey: .name)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(iss, forKey: .iss)
        try container.encode(sub, forKey: .sub)
        try container.encode(aud, forKey: .aud)
        try container.encode(exp, forKey: .exp)
        try container.encode(iat, forKey: .iat)
        try container.encodeIfPresent(azp, forKey: .azp)
        try container.encodeIfPresent(nonce, forKey: .nonce)
        try container.encodeIfPresent(preferredUsername, forKey: .preferredUsername)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encodeIfPresent(name, forKey: .name)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Any JSON object as a payload: for reading a token's header before anything about it is trusted.
struct HeaderProbe: JWTPayload {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
