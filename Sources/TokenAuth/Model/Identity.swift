#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Who signed in: the OpenID Connect issuer and subject of a validated `id_token`, with a name to show.
///
/// The pair (``issuer``, ``subject``) identifies the account for good (OpenID Connect Core §2: `sub` is unique and
/// never reassigned within an issuer); ``displayName`` is for people and may change. An identity is recorded only
/// from an `id_token` that `IDTokenVerifier` validated, so an app can trust it as far as it trusts the issuer.
///
/// Its ``description`` is what to show a person: the display name, or the subject when there is none. It contains no
/// token.
public struct Identity: Sendable, Equatable, Hashable {
    /// The issuer identifier, exactly as the `id_token`'s `iss` (and the provider's discovery document) gives it.
    public var issuer: URL
    /// The `sub` claim: the account's stable identifier at ``issuer``.
    public var subject: String
    /// A name to show: `preferred_username`, `email` or `name`, from the `id_token` or the UserInfo endpoint;
    /// `nil` when neither gave one.
    public var displayName: String?

    /// Creates an identity.
    public init(issuer: URL, subject: String, displayName: String? = nil) {
        self.issuer = issuer
        self.subject = subject
        self.displayName = displayName
    }

    /// Whether `other` is the same account: the same issuer and subject, whatever the display names.
    public func isSameAccount(as other: Identity) -> Bool {
        issuer.absoluteString == other.issuer.absoluteString && subject == other.subject
    }
}

extension Identity: CustomStringConvertible {
    /// The display name, or the subject when there is none: "ada@example.com".
    public var description: String {
        displayName ?? subject
    }
}
