import Foundation

extension OAuthTestServer {
    /// How a token is signed: by a published key, or in one of the wrong ways a client must refuse.
    package enum IDTokenSigner: String, Sendable, Equatable, Codable, CaseIterable {
        /// RS256 with the published RSA key.
        case rs256
        /// ES256 with the published P-256 key.
        case es256
        /// RS256 with a foreign key under the published RSA key's `kid`: a bad signature.
        case foreignKey
        /// RS256 with a foreign key under a `kid` the key set does not have (`unknown-1`).
        case unknownKey
        /// `alg` `none`, no signature.
        case none
        /// HS256 with a shared secret, under `kid` `hs256`.
        case hs256
    }

    /// Something wrong with the next `id_token` the token endpoint issues. Set as ``Faults/idTokenFaults``.
    package enum IDTokenFault: String, Sendable, Equatable, Codable, CaseIterable {
        /// Signed by a key that is not in the key set, under the published key's `kid`.
        case badSignature
        /// Signed by a key under a `kid` the key set does not have.
        case unknownKey
        /// `alg` `none`.
        case algNone
        /// HS256 with a shared secret.
        case hmac
        /// `aud` names another client.
        case wrongAudience
        /// `aud` names the client and another one, without `azp`.
        case extraAudienceWithoutAuthorizedParty
        /// `azp` names another client.
        case wrongAuthorizedParty
        /// `iss` is another issuer.
        case wrongIssuer
        /// `exp` is an hour ago.
        case expired
        /// `iat` is an hour ahead.
        case issuedInFuture
        /// `nonce` is another one (or present when none was asked).
        case wrongNonce
        /// `sub` is another account's.
        case changedSubject
    }

    /// What the OpenID Connect part of the server does, changeable while it runs through ``OAuthTestServer/openID``.
    ///
    /// Token responses carry an `id_token` whenever the granted scope includes `openid`: `iss` is the issuer as the
    /// discovery document names it, `sub` is ``OAuthTestServer/subjectIdentifier(ofUser:)``, `aud` and `azp` the
    /// client id, `iat` and `exp` by the server's clock, `nonce` when the grant recorded one, and the profile claims
    /// (`preferred_username` the user name, `email` NAME@example.com, `name` the capitalised user name) when
    /// ``profileInIDToken`` is set. `GET` or `POST /userinfo` with a valid access token answers the same profile.
    package struct OpenIDSettings: Sendable, Equatable {
        /// How `id_token`s are signed.
        package var signer: IDTokenSigner
        /// Whether `id_token`s carry `preferred_username`, `email` and `name`; without them a client has to ask
        /// UserInfo for a name to show.
        package var profileInIDToken: Bool
        /// Whether the UserInfo answer carries them.
        package var profileInUserinfo: Bool
        /// How long `id_token`s live.
        package var idTokenLifetime: Duration

        /// Creates settings; the defaults sign with RS256 and put the profile everywhere.
        package init(
            signer: IDTokenSigner = .rs256,
            profileInIDToken: Bool = true,
            profileInUserinfo: Bool = true,
            idTokenLifetime: Duration = .seconds(600)
        ) {
            self.signer = signer
            self.profileInIDToken = profileInIDToken
            self.profileInUserinfo = profileInUserinfo
            self.idTokenLifetime = idTokenLifetime
        }
    }

    /// The claims of an `id_token` to mint with ``OAuthTestServer/mintIDToken(_:signer:)``: anything a test needs,
    /// right or wrong. Start from ``OAuthTestServer/idTokenClaims(user:clientID:nonce:)``.
    package struct MintedIDTokenClaims: Sendable, Equatable, Codable {
        package var iss: String
        package var sub: String
        package var aud: [String]
        package var azp: String?
        package var exp: Date
        package var iat: Date
        package var nonce: String?
        package var preferredUsername: String?
        package var email: String?
        package var name: String?
        /// Microsoft's `tid`: the user's tenant.
        package var tid: String?

        enum CodingKeys: String, CodingKey {
            case iss, sub, aud, azp, exp, iat, nonce, email, name, tid
            case preferredUsername = "preferred_username"
        }

        /// Creates claims.
        package init(
            iss: String, sub: String, aud: [String], azp: String? = nil, exp: Date, iat: Date, nonce: String? = nil,
            preferredUsername: String? = nil, email: String? = nil, name: String? = nil
        ) {
            self.iss = iss
            self.sub = sub
            self.aud = aud
            self.azp = azp
            self.exp = exp
            self.iat = iat
            self.nonce = nonce
            self.preferredUsername = preferredUsername
            self.email = email
            self.name = name
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(iss, forKey: .iss)
            try container.encode(sub, forKey: .sub)
            if aud.count == 1 { try container.encode(aud[0], forKey: .aud) } else { try container.encode(aud, forKey: .aud) }
            try container.encodeIfPresent(azp, forKey: .azp)
            try container.encode(Int64(exp.timeIntervalSince1970.rounded(.down)), forKey: .exp)
            try container.encode(Int64(iat.timeIntervalSince1970.rounded(.down)), forKey: .iat)
            try container.encodeIfPresent(nonce, forKey: .nonce)
            try container.encodeIfPresent(preferredUsername, forKey: .preferredUsername)
            try container.encodeIfPresent(email, forKey: .email)
            try container.encodeIfPresent(name, forKey: .name)
            try container.encodeIfPresent(tid, forKey: .tid)
        }
    }
}
