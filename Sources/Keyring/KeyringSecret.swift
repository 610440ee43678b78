/// A secret as ``Keyring/lookup(_:)`` read it, with the item it came from.
///
/// Only the item's path and attributes come with it: they are what the lookup had to read anyway. Its label
/// and dates cost the Secret Service more than the secret itself; ``Keyring/items(matching:)`` has them.
public struct KeyringSecret: Sendable {
    /// The D-Bus object path of the item the secret was read from.
    public let path: String
    /// The item's attributes, including `xdg:schema` when its writer added one.
    public let attributes: [String: String]
    /// The secret, as text.
    public let secret: String

    /// Creates a secret read from the item at `path`.
    public init(path: String, attributes: [String: String], secret: String) {
        self.path = path
        self.attributes = attributes
        self.secret = secret
    }
}

extension KeyringSecret: CustomStringConvertible {
    /// Names the item; the secret is redacted.
    public var description: String { "KeyringSecret(item: \(path), secret: <redacted>)" }
}
