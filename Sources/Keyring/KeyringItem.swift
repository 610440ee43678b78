import Foundation

/// One item in the Secret Service, as found by a search: its identity and public metadata, not its secret.
public struct KeyringItem: Sendable, Hashable {
    /// The attribute that libsecret adds to name the schema an item was written with.
    public static let schemaAttribute = "xdg:schema"

    /// The item's D-Bus object path, e.g. `/org/freedesktop/secrets/collection/login/3`.
    public let path: String
    /// The item's attributes, including `xdg:schema` when the writer added one.
    public let attributes: [String: String]
    /// The item's human-readable label.
    public let label: String
    /// When the item was created.
    public let created: Date
    /// When the item (its secret, label or attributes) was last changed.
    public let modified: Date
    /// Whether the item is locked, so that its secret cannot be read without unlocking it.
    public let isLocked: Bool

    /// Creates an item description.
    public init(path: String, attributes: [String: String], label: String, created: Date, modified: Date, isLocked: Bool) {
        self.path = path
        self.attributes = attributes
        self.label = label
        self.created = created
        self.modified = modified
        self.isLocked = isLocked
    }

    /// The D-Bus path of the collection holding the item.
    public var collectionPath: String { Self.collectionPath(ofItemAt: path) }

    static func collectionPath(ofItemAt path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[..<slash])
    }

    /// Whether the item's attributes are exactly `attributes`, ignoring `xdg:schema`.
    public func hasExactly(_ attributes: [String: String]) -> Bool {
        Self.attributes(self.attributes, matchExactly: attributes)
    }

    /// Whether an item's attributes `own` are exactly `wanted`, ignoring `xdg:schema` on either side.
    static func attributes(_ own: [String: String], matchExactly wanted: [String: String]) -> Bool {
        var own = own
        own.removeValue(forKey: schemaAttribute)
        var wanted = wanted
        wanted.removeValue(forKey: schemaAttribute)
        return own == wanted
    }
}
