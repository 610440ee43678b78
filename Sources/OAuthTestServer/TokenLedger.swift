import Foundation

/// Every token the server has issued, grouped into refresh-token families (RFC 9700 §4.14.2).
///
/// A family starts with a grant that issues a refresh token; each refresh replaces the family's current refresh
/// token and retires the old one. Presenting a retired refresh token is reuse: the whole family, every access token
/// and its current refresh token, is revoked. Access tokens from grants without a refresh token form a family of
/// their own with no refresh token, so revocation is uniform.
struct TokenLedger {
    /// What the server knows about one access token.
    struct AccessToken {
        var subject: String
        var clientID: String
        var scope: String?
        var expiresAt: Date
        var familyID: Int
        var revoked = false
        /// The thumbprint of the DPoP key the token is bound to (`cnf.jkt`, RFC 9449 §6), or `nil` for a bearer token.
        var jkt: String?
    }

    /// One chain of rotated refresh tokens and the access tokens issued along it.
    struct Family {
        var subject: String
        var clientID: String
        var scope: String?
        var currentRefreshToken: String?
        /// When the current refresh token (and the access token issued with it) was issued.
        var currentIssuedAt: Date?
        var retiredRefreshTokens: Set<String> = []
        var accessTokens: [String] = []
        var revoked = false
        /// The thumbprint of the DPoP key the family's refresh tokens are bound to (RFC 9449 §5), or `nil`: set by
        /// the grant that started the family.
        var jkt: String?
    }

    /// Tokens handed out by one successful grant.
    struct Issued: Equatable {
        /// The user (or client) the tokens are for.
        var subject: String
        /// The client they were issued to.
        var clientID: String
        var accessToken: String
        var refreshToken: String?
        var scope: String?
        var expiresAt: Date
        /// The thumbprint of the DPoP key the access token is bound to, or `nil` for a bearer token.
        var jkt: String?
    }

    /// Why a refresh token was refused.
    enum RefreshFailure: Error, Equatable {
        /// Never issued by this server.
        case unknown
        /// Issued to another client (RFC 6749 §6: the token is bound to the client).
        case wrongClient
        /// A retired refresh token was presented: the family has been revoked.
        case reuseDetected
        /// The family was revoked earlier.
        case revoked
        /// The requested scope is wider than the original grant.
        case scopeTooWide
        /// The family is bound to a DPoP key and the request's proof is missing or of another key (RFC 9449 §5).
        /// The refresh token is not spent.
        case wrongDPoPKey
    }

    /// Why an access token was refused at the resource.
    enum AccessFailure: Error, Equatable {
        case unknown
        case expired
        case revoked
    }

    private var accessTokens: [String: AccessToken] = [:]
    private var families: [Int: Family] = [:]
    private var familyOfRefreshToken: [String: Int] = [:]
    private var nextFamilyID = 1

    /// Starts a family for a new grant and issues its first tokens.
    ///
    /// - Parameter jkt: The thumbprint of the key of the grant's DPoP proof, which the tokens are bound to; `nil`
    ///   for bearer tokens.
    mutating func issue(
        subject: String,
        clientID: String,
        scope: String?,
        withRefreshToken: Bool,
        now: Date,
        lifetime: Duration,
        jkt: String? = nil
    ) -> Issued {
        let familyID = nextFamilyID
        nextFamilyID += 1
        families[familyID] = Family(subject: subject, clientID: clientID, scope: scope, jkt: jkt)
        return issueTokens(
            inFamily: familyID, scope: scope, rotating: withRefreshToken, now: now, lifetime: lifetime, jkt: jkt)
    }

    /// Redeems a refresh token: rotates it (when `rotate` is set) and issues a new access token in its family.
    ///
    /// - Parameter jkt: The thumbprint of the key of the request's DPoP proof, `nil` without one. A family bound to
    ///   a key needs that key (else ``RefreshFailure/wrongDPoPKey``, nothing spent); the new access token is bound
    ///   to `jkt` in any case.
    mutating func refresh(
        _ refreshToken: String,
        clientID: String,
        requestedScope: String?,
        rotate: Bool,
        now: Date,
        lifetime: Duration,
        jkt: String? = nil
    ) -> Result<Issued, RefreshFailure> {
        guard let familyID = familyOfRefreshToken[refreshToken], var family = families[familyID] else {
            return .failure(.unknown)
        }
        guard family.clientID == clientID else { return .failure(.wrongClient) }
        if family.retiredRefreshTokens.contains(refreshToken) {
            revokeFamily(familyID)
            return .failure(.reuseDetected)
        }
        guard !family.revoked else { return .failure(.revoked) }
        if let bound = family.jkt, bound != jkt { return .failure(.wrongDPoPKey) }
        let scope: String?
        if let requestedScope {
            let granted = Set(Self.scopeItems(family.scope))
            guard Set(Self.scopeItems(requestedScope)).isSubset(of: granted) else { return .failure(.scopeTooWide) }
            scope = requestedScope
        } else {
            scope = family.scope
        }
        if rotate {
            family.retiredRefreshTokens.insert(refreshToken)
            family.currentRefreshToken = nil
        }
        families[familyID] = family
        return .success(
            issueTokens(inFamily: familyID, scope: scope, rotating: rotate, now: now, lifetime: lifetime, jkt: jkt))
    }

    /// How long ago `refreshToken` was issued, when it is the current one of its family; `nil` otherwise.
    func age(ofRefreshToken refreshToken: String, now: Date) -> TimeInterval? {
        guard let familyID = familyOfRefreshToken[refreshToken], let family = families[familyID],
            family.currentRefreshToken == refreshToken, let issuedAt = family.currentIssuedAt
        else { return nil }
        return now.timeIntervalSince(issuedAt)
    }

    /// The subject `token` (an access or refresh token) was issued to, whether or not it is still valid.
    func subject(of token: String) -> String? {
        if let record = accessTokens[token] { return record.subject }
        return familyOfRefreshToken[token].flatMap { families[$0]?.subject }
    }

    /// The thumbprint of the DPoP key `token` (an access or refresh token) is bound to; `nil` for a bearer token or
    /// one this server never issued.
    func dpopThumbprint(of token: String) -> String? {
        if let record = accessTokens[token] { return record.jkt }
        return familyOfRefreshToken[token].flatMap { families[$0]?.jkt }
    }

    /// Checks an access token presented to the resource.
    func validate(accessToken: String, now: Date) -> Result<AccessToken, AccessFailure> {
        guard let record = accessTokens[accessToken] else { return .failure(.unknown) }
        if record.revoked || families[record.familyID]?.revoked ?? true { return .failure(.revoked) }
        guard now < record.expiresAt else { return .failure(.expired) }
        return .success(record)
    }

    /// Revokes every access token issued so far; refresh tokens stay usable. Returns how many were live.
    mutating func revokeAllAccessTokens() -> Int {
        var count = 0
        for (token, record) in accessTokens where !record.revoked {
            accessTokens[token]?.revoked = true
            if families[record.familyID]?.revoked == false { count += 1 }
        }
        return count
    }

    /// The outcome of an RFC 7009 revocation request.
    enum Revocation: Equatable {
        /// A live token was revoked: a refresh token with its whole family, or one access token.
        case revoked
        /// The token is unknown or already revoked (the endpoint still answers 200, RFC 7009 §2.2).
        case nothingToRevoke
        /// The token was issued to another client (RFC 7009 §2.1: the request is refused).
        case wrongClient
    }

    /// Revokes `token` for `clientID`, whichever kind it is.
    mutating func revoke(_ token: String, clientID: String) -> Revocation {
        if let familyID = familyOfRefreshToken[token], let family = families[familyID] {
            guard family.clientID == clientID else { return .wrongClient }
            guard !family.revoked else { return .nothingToRevoke }
            revokeFamily(familyID)
            return .revoked
        }
        if let record = accessTokens[token] {
            guard record.clientID == clientID else { return .wrongClient }
            guard !record.revoked else { return .nothingToRevoke }
            accessTokens[token]?.revoked = true
            return .revoked
        }
        return .nothingToRevoke
    }

    private mutating func revokeFamily(_ familyID: Int) {
        guard var family = families[familyID] else { return }
        family.revoked = true
        for token in family.accessTokens {
            accessTokens[token]?.revoked = true
        }
        families[familyID] = family
    }

    private mutating func issueTokens(
        inFamily familyID: Int,
        scope: String?,
        rotating: Bool,
        now: Date,
        lifetime: Duration,
        jkt: String?
    ) -> Issued {
        var family = families[familyID]!
        let accessToken = Self.randomToken()
        let expiresAt = now.addingTimeInterval(lifetime.timeInterval)
        accessTokens[accessToken] = AccessToken(
            subject: family.subject,
            clientID: family.clientID,
            scope: scope,
            expiresAt: expiresAt,
            familyID: familyID,
            jkt: jkt
        )
        family.accessTokens.append(accessToken)
        var refreshToken: String?
        if rotating {
            let token = Self.randomToken()
            family.currentRefreshToken = token
            family.currentIssuedAt = now
            familyOfRefreshToken[token] = familyID
            refreshToken = token
        }
        families[familyID] = family
        return Issued(
            subject: family.subject, clientID: family.clientID, accessToken: accessToken, refreshToken: refreshToken,
            scope: scope, expiresAt: expiresAt, jkt: jkt)
    }

    /// The items of a space-separated scope (RFC 6749 §3.3).
    static func scopeItems(_ scope: String?) -> [String] {
        scope?.split(separator: " ").map(String.init) ?? []
    }

    /// An opaque, unguessable token: 32 random bytes, base64url without padding.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
