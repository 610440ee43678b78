#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The text of a stored entry — the keyring item's secret, the file store's file — as every store of this package
/// writes it: a stable, versioned JSON interchange format (documented in the article "The keyring item").
///
/// ```json
/// {"version":1,"access_token":"…","token_type":"Bearer","refresh_token":"…",
///  "expires_at":"2026-11-22T19:30:00Z","scope":"read write",
///  "token_endpoint":"https://auth.example/token","client_id":"app","client_secret":"…",
///  "client_auth":"client_secret_basic","revocation_endpoint":"https://auth.example/revoke",
///  "refreshed_at":"2026-11-22T18:30:00Z","issued_at":"2026-11-22T18:30:00Z",
///  "issuer":"https://auth.example","jwks_uri":"https://auth.example/jwks",
///  "userinfo_endpoint":"https://auth.example/userinfo","sub":"248289761001","display_name":"ada@example.com",
///  "unverified_id_token":"eyJ…","ended":"a refresh answered for another account…",
///  "refresh_started_at":"2026-11-22T19:29:30Z",
///  "dpop_key":{"kind":"software","jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I","material":"…"}}
/// ```
/// `dpop_key` is the key the tokens are bound to (DPoP, `Auth.proofKey`): its kind (`software`, `tpm`), its RFC 7638
/// thumbprint and what its provider signs with — a software key's private key, a TPM key's TPM-wrapped blobs. A bundle
/// with it is written as version 2, so that a reader of version 1 — which would send its tokens without proofs, and
/// could rewrite the entry without the key — refuses it as newer (`unsupportedVersion`) and changes nothing; a bundle
/// without it stays version 1, readable by every earlier version.
/// `unverified_id_token` is the `id_token` of a refresh that could not be checked yet (the identity check is
/// pending); `ended` says why the session ended although the item was kept (then there is no `refresh_token`);
/// `refresh_started_at` says that a refresh began and its answer was not stored since (its refresh token may have been
/// spent: `Auth.refreshStartedAt`).
/// `issuer` is the client's discovery issuer and, with `sub`, the identity's issuer: one item has one issuer
/// (the verifier requires a token's `iss` to be the client's issuer, so they never differ; if a caller gives an
/// identity of another issuer, the identity's is written).
/// Only `version` and `access_token` are required; readers ignore members they do not know, so optional members
/// such as `refreshed_at` can be added without a new version. A secret that is not JSON but one line of text is
/// read as a bare access token (what `secret-tool store` users put there).
package enum StoredBundleFormat {
    /// The newest version this library reads and writes: 2, a bundle bound to a key (`dpop_key`).
    package static let currentVersion = 2
    /// The version of bundles without a key, which every version reads.
    package static let bearerVersion = 1
    /// The `grant` of a client that signs in as itself (``OAuthClient/usesClientCredentials``).
    package static let clientCredentialsGrant = "client_credentials"

    /// The private mirror of ``StoredCredentials``: the domain types never learn this layout.
    private struct BundleV1: Codable {
        var version: Int
        var accessToken: String
        var tokenType: String?
        var refreshToken: String?
        var expiresAt: String?
        var scope: String?
        var tokenEndpoint: String?
        var clientID: String?
        var clientSecret: String?
        var clientAuth: String?
        var revocationEndpoint: String?
        var refreshedAt: String?
        var issuedAt: String?
        var issuer: String?
        var jwksURI: String?
        var userinfoEndpoint: String?
        var subject: String?
        var displayName: String?
        var unverifiedIDToken: String?
        var ended: String?
        var grant: String?
        var refreshTokenExpiresAt: String?
        var refreshStartedAt: String?
        var dpopKey: StoredProofKey?

        enum CodingKeys: String, CodingKey {
            case version, scope
            case accessToken = "access_token", tokenType = "token_type", refreshToken = "refresh_token"
            case expiresAt = "expires_at", tokenEndpoint = "token_endpoint", clientID = "client_id"
            case clientSecret = "client_secret", clientAuth = "client_auth", revocationEndpoint = "revocation_endpoint"
            case refreshedAt = "refreshed_at", issuedAt = "issued_at"
            case issuer, jwksURI = "jwks_uri", userinfoEndpoint = "userinfo_endpoint"
            case subject = "sub", displayName = "display_name"
            case unverifiedIDToken = "unverified_id_token", ended, grant
            case refreshTokenExpiresAt = "refresh_token_expires_at"
            case refreshStartedAt = "refresh_started_at"
            case dpopKey = "dpop_key"
        }
    }

    /// `dpop_key`: ``ProofKey``'s stored form.
    private struct StoredProofKey: Codable {
        var kind: String
        var jkt: String
        var material: String
    }

    private struct VersionProbe: Decodable { var version: Int? }

    package static func encode(_ credentials: StoredCredentials) throws -> String {
        let auth = credentials.auth
        let client = credentials.client
        let bundle = BundleV1(
            version: auth.proofKey == nil ? bearerVersion : currentVersion,
            accessToken: auth.accessToken,
            tokenType: auth.tokenType,
            refreshToken: auth.refreshToken,
            expiresAt: auth.expiresAt.map(RFC3339.format),
            scope: auth.scope,
            tokenEndpoint: client?.tokenEndpoint.absoluteString,
            clientID: client?.clientID,
            clientSecret: client?.clientSecret,
            clientAuth: client?.authentication.rawValue,
            revocationEndpoint: client?.revocationEndpoint?.absoluteString,
            refreshedAt: credentials.refreshedAt.map(RFC3339.format),
            issuedAt: auth.issuedAt.map(RFC3339.format),
            issuer: (auth.identity?.issuer ?? client?.issuer)?.absoluteString,
            jwksURI: client?.jwksURI?.absoluteString,
            userinfoEndpoint: client?.userinfoEndpoint?.absoluteString,
            subject: auth.identity?.subject,
            displayName: auth.identity?.displayName,
            unverifiedIDToken: auth.unverifiedIDToken,
            ended: auth.endReason,
            grant: client?.usesClientCredentials == true ? clientCredentialsGrant : nil,
            refreshTokenExpiresAt: auth.refreshTokenExpiresAt.map(RFC3339.format),
            refreshStartedAt: auth.refreshStartedAt.map(RFC3339.format),
            dpopKey: auth.proofKey.map { StoredProofKey(kind: $0.kind.rawValue, jkt: $0.thumbprint, material: $0.material) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(bundle), as: UTF8.self)
    }

    /// Decodes a stored secret. `entry` names the item in errors.
    package static func decode(_ text: String, entry: String) throws -> StoredCredentials {
        do {
            return try decode(text)
        } catch {
            if let version = error.newerVersion { throw TokenAuthError.unsupportedVersion(entry, version) }
            throw TokenAuthError.corrupt(entry, error.reason)
        }
    }

    /// What makes a secret unreadable: a short reason, and the version of a newer format.
    package struct Problem: Error {
        package let reason: String
        package var newerVersion: Int?

        init(_ reason: String) {
            self.reason = reason
        }

        init(newerVersion: Int) {
            reason = "it is written in format version \(newerVersion), newer than this library's"
            self.newerVersion = newerVersion
        }
    }

    /// Decodes a stored secret, or says in a short reason why it cannot be read.
    package static func decode(_ text: String) throws(Problem) -> StoredCredentials {
        // What we write has no surrounding white space: trim (a full copy) only text that has some.
        let padded = text.unicodeScalars.first?.properties.isWhitespace == true
            || text.unicodeScalars.last?.properties.isWhitespace == true
        let trimmed = padded ? text.trimmingWhitespace : text
        // A JSON array is JSON, so not a bare token (no token starts with "[": RFC 6750's b64token).
        if trimmed.hasPrefix("[") { throw Problem("it is JSON but not an object") }
        guard trimmed.hasPrefix("{") else {
            guard !trimmed.isEmpty, !trimmed.contains(where: \.isNewline) else {
                throw Problem("it is neither JSON nor a single-line token")
            }
            return StoredCredentials(auth: Auth(accessToken: trimmed))
        }
        let data = Data(trimmed.utf8)
        // One decode when the text is what we write; the version is checked before anything else is trusted.
        let bundle: BundleV1
        do {
            bundle = try JSONDecoder().decode(BundleV1.self, from: data)
        } catch {
            // Explain the failure: an unknown version first, then what is wrong in a version 1 bundle.
            try checkVersion(of: data)
            throw describe(error)
        }
        guard (bearerVersion...currentVersion).contains(bundle.version) else {
            try checkVersion(of: data)
            throw Problem("\"version\" \(bundle.version) is not a known format")
        }
        guard !bundle.accessToken.isEmpty else { throw Problem("\"access_token\" is empty") }

        let auth = Auth(
            accessToken: bundle.accessToken,
            tokenType: bundle.tokenType.map(TokenType.normalize) ?? "Bearer",
            refreshToken: bundle.refreshToken,
            expiresAt: try date(bundle.expiresAt, "expires_at"),
            scope: bundle.scope,
            issuedAt: try date(bundle.issuedAt, "issued_at"),
            identity: try identity(of: bundle),
            unverifiedIDToken: bundle.unverifiedIDToken.flatMap { $0.isEmpty ? nil : $0 },
            endReason: bundle.ended.flatMap { $0.isEmpty ? nil : $0 },
            refreshTokenExpiresAt: try date(bundle.refreshTokenExpiresAt, "refresh_token_expires_at"),
            refreshStartedAt: try date(bundle.refreshStartedAt, "refresh_started_at"),
            proofKey: try proofKey(of: bundle))
        return StoredCredentials(
            auth: auth, client: try client(of: bundle),
            refreshedAt: try date(bundle.refreshedAt, "refreshed_at"))
    }

    /// The key of `dpop_key`, whose members must all be there and not empty.
    private static func proofKey(of bundle: BundleV1) throws(Problem) -> ProofKey? {
        guard let key = bundle.dpopKey else { return nil }
        guard !key.kind.isEmpty, !key.jkt.isEmpty, !key.material.isEmpty else {
            throw Problem("\"dpop_key\" has an empty member")
        }
        return ProofKey(kind: ProofKey.Kind(rawValue: key.kind), thumbprint: key.jkt, material: key.material)
    }

    /// An optional RFC 3339 member, or `corrupt` naming it when present and unreadable.
    private static func date(_ text: String?, _ member: String) throws(Problem) -> Date? {
        guard let text else { return nil }
        guard let date = RFC3339.parse(text) else {
            throw Problem("\"\(member)\" is not an RFC 3339 date")
        }
        return date
    }

    /// Throws unless `data` is a JSON object whose `version` is this format's.
    private static func checkVersion(of data: Data) throws(Problem) {
        guard let probe = try? JSONDecoder().decode(VersionProbe.self, from: data) else {
            throw Problem("it is not valid JSON")
        }
        guard let version = probe.version else { throw Problem("it has no \"version\"") }
        guard (bearerVersion...currentVersion).contains(version) else {
            if version > currentVersion { throw Problem(newerVersion: version) }
            throw Problem("\"version\" \(version) is not a known format")
        }
    }

    /// What a failed decode of a version 1 bundle means, in the item's terms.
    private static func describe(_ error: any Error) -> Problem {
        switch error {
        case DecodingError.keyNotFound(let key, _):
            return Problem("\"\(key.stringValue)\" is missing")
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return Problem("\"\(field)\" has the wrong type")
        default:
            return Problem("it is not a token bundle")
        }
    }

    private static func client(of bundle: BundleV1) throws(Problem) -> OAuthClient? {
        guard let endpoint = bundle.tokenEndpoint, let clientID = bundle.clientID else {
            if bundle.tokenEndpoint != nil || bundle.clientID != nil {
                throw Problem("\"token_endpoint\" and \"client_id\" must be stored together")
            }
            return nil
        }
        guard let url = URL(string: endpoint), url.scheme != nil, url.host != nil else {
            throw Problem("\"token_endpoint\" is not an absolute URL")
        }
        if let grant = bundle.grant, grant != clientCredentialsGrant {
            throw Problem("\"grant\" \"\(grant)\" is not \"\(clientCredentialsGrant)\"")
        }
        var authentication: OAuthClient.Authentication?
        if let raw = bundle.clientAuth {
            guard let method = OAuthClient.Authentication(rawValue: raw) else {
                throw Problem("\"client_auth\" \"\(raw)\" is not one of none, client_secret_post, client_secret_basic")
            }
            authentication = method
        }
        return OAuthClient(
            tokenEndpoint: url, clientID: clientID, clientSecret: bundle.clientSecret,
            authentication: authentication,
            revocationEndpoint: try absoluteURL(bundle.revocationEndpoint, "revocation_endpoint"),
            issuer: try absoluteURL(bundle.issuer, "issuer"),
            jwksURI: try absoluteURL(bundle.jwksURI, "jwks_uri"),
            userinfoEndpoint: try absoluteURL(bundle.userinfoEndpoint, "userinfo_endpoint"),
            usesClientCredentials: bundle.grant == clientCredentialsGrant)
    }

    /// The identity: `sub` with `issuer`, and `display_name` when present. `display_name` without `sub` is ignored.
    private static func identity(of bundle: BundleV1) throws(Problem) -> Identity? {
        guard let subject = bundle.subject else { return nil }
        guard !subject.isEmpty else { throw Problem("\"sub\" is empty") }
        guard let issuer = try absoluteURL(bundle.issuer, "issuer") else {
            throw Problem("\"sub\" needs the \"issuer\" it belongs to")
        }
        return Identity(issuer: issuer, subject: subject, displayName: bundle.displayName.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// An optional URL member, or `corrupt` naming it when present and not an absolute URL.
    private static func absoluteURL(_ text: String?, _ member: String) throws(Problem) -> URL? {
        guard let text else { return nil }
        guard let url = URL(string: text), url.scheme != nil else {
            throw Problem("\"\(member)\" is not an absolute URL")
        }
        return url
    }
}
