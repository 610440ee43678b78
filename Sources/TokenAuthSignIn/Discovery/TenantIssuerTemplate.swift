import Foundation
import TokenAuth

/// An issuer identifier with a `{tenantid}` placeholder, as Microsoft's multi-tenant metadata names it.
///
/// `https://login.microsoftonline.com/common/v2.0` and `…/organizations/v2.0` publish the issuer
/// `https://login.microsoftonline.com/{tenantid}/v2.0`: one document for every tenant, whose `id_token`s name their
/// own tenant in `tid` and in `iss`. Microsoft's own libraries accept such a document for the issuer asked for, and
/// check each token's `iss` against the template filled with that token's `tid`; so does this type — but only for
/// an issuer asked for that names one of the aliases that serve several tenants (``aliases``). A document for one
/// tenant's issuer that named the template would let any tenant's tokens in, so it counts as another issuer's.
/// https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols-oidc and
/// https://learn.microsoft.com/en-us/entra/identity-platform/id-token-claims-reference
struct TenantIssuerTemplate: Sendable, Equatable {
    /// The placeholder, exactly as Microsoft writes it.
    static let placeholder = "{tenantid}"

    /// The tenants in the place of the placeholder whose metadata may name the template: Microsoft's `common`
    /// (any account), `organizations` (work and school accounts) and `consumers` (personal accounts), compared
    /// without regard to ASCII case, as Microsoft reads them.
    static let aliases: Set<String> = ["common", "organizations", "consumers"]

    /// The template as the document gave it.
    let text: String
    private let prefix: Substring
    private let suffix: Substring
    /// `false` for ``matchingNothing(_:)``.
    private let usable: Bool

    /// The template in `issuer`, or `nil` when it has no placeholder, more than one, or one that does not stand
    /// for a whole segment of the path of an `https` URL (or `http` on a loopback host).
    init?(_ issuer: String) {
        let parts = issuer.split(separator: Self.placeholder, omittingEmptySubsequences: false)
        guard parts.count == 2, let scheme = parts[0].range(of: "://"), parts[0].hasSuffix("/"),
            parts[0][scheme.upperBound...].contains("/"), parts[1].isEmpty || parts[1].hasPrefix("/"),
            let example = URL(string: parts[0] + "tenant" + parts[1]), example.canCarryCredentials
        else { return nil }
        text = issuer
        prefix = parts[0]
        suffix = parts[1]
        usable = true
    }

    /// A template that nothing fills, standing for `text` that is not a template: every token is refused.
    static func matchingNothing(_ text: String) -> TenantIssuerTemplate {
        TenantIssuerTemplate(unusable: text)
    }

    private init(unusable text: String) {
        self.text = text
        prefix = ""
        suffix = ""
        usable = false
    }

    /// The template with `{tenantid}` replaced by `tenant`, or `nil` when `tenant` is not a tenant identifier: an id
    /// or name of ASCII letters, digits, `-` and `.` (no `/`, so it cannot reach into another path).
    func filled(with tenant: String) -> String? {
        guard usable, Self.isTenant(tenant[...]) else { return nil }
        return prefix + tenant + suffix
    }

    /// Whether `issuer`, the issuer the metadata was asked for, is this template filled with one of the ``aliases``
    /// (`…/common/v2.0`); `false` for any other tenant, whose own metadata names its own issuer.
    func matches(_ issuer: String) -> Bool {
        guard usable, issuer.count > prefix.count + suffix.count, issuer.hasPrefix(prefix), issuer.hasSuffix(suffix) else {
            return false
        }
        let tenant = issuer.dropFirst(prefix.count).dropLast(suffix.count)
        return Self.isTenant(tenant) && Self.aliases.contains(tenant.lowercased())
    }

    private static func isTenant(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E
        } && text != "." && text != ".."
    }
}
