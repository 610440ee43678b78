import Foundation
import TokenAuth

/// An issuer identifier with a `{tenantid}` placeholder, as Microsoft's multi-tenant metadata names it.
///
/// `https://login.microsoftonline.com/common/v2.0` and `…/organizations/v2.0` publish the issuer
/// `https://login.microsoftonline.com/{tenantid}/v2.0`: one document for every tenant, whose `id_token`s name their
/// own tenant in `tid` and in `iss`. Microsoft's own libraries accept such a document for the issuer asked for, and
/// check each token's `iss` against the template filled with that token's `tid`; so does this type.
/// https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols-oidc and
/// https://learn.microsoft.com/en-us/entra/identity-platform/id-token-claims-reference
struct TenantIssuerTemplate: Sendable, Equatable {
    /// The placeholder, exactly as Microsoft writes it.
    static let placeholder = "{tenantid}"

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

    /// Whether `issuer` is this template filled with some tenant, such as the `common` or `organizations` the
    /// metadata was asked for.
    func matches(_ issuer: String) -> Bool {
        guard usable, issuer.count > prefix.count + suffix.count, issuer.hasPrefix(prefix), issuer.hasSuffix(suffix) else {
            return false
        }
        return Self.isTenant(issuer.dropFirst(prefix.count).dropLast(suffix.count))
    }

    private static func isTenant(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E
        } && text != "." && text != ".."
    }
}
