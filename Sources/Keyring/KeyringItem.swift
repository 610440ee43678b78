import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One item in the Secret Service, as found by a search: its identity and public metadata, not its secret.
public struct KeyringItem: Sendable, Hashable {
    /// The attribute that libsecret adds to name the schema an item was written with.
    public static let schemaAttribute = "xdg:schema"

    /// The item's D-Bus object path, e.g. `/org/freedesktop/secrets/collection/login/3`.
    public let path: String
    /// The item's attributes, including those the provider added (`xdg:schema`, KeePassXC's `Title`, `Uuid`…).
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

    /// The fields KeePassXC adds, as attributes, to every item it exposes through the Secret Service (`TOTP` only
    /// where one is set). They are KeePassXC's, not the writer's: `Title` mirrors the label, `Path` the entry's place.
    public static let keePassXCAttributes: Set<String> = ["Title", "UserName", "URL", "Notes", "Uuid", "Path", "TOTP"]

    /// The KeePassXC fields that are always present; an item carrying all of them was exposed by KeePassXC.
    static let keePassXCSignature: Set<String> = ["Title", "UserName", "URL", "Notes", "Uuid", "Path"]

    /// The attributes of `attributes` that the Secret Service provider added itself, rather than the item's writer:
    /// `xdg:schema` (libsecret, gnome-keyring), and KeePassXC's ``keePassXCAttributes`` on an item that carries all of
    /// KeePassXC's always-present fields. Any other attribute is the writer's.
    public static func providerOwnedAttributes(of attributes: [String: String]) -> Set<String> {
        var owned: Set<String> = [schemaAttribute]
        if keePassXCSignature.isSubset(of: attributes.keys) { owned.formUnion(keePassXCAttributes) }
        return owned.intersection(attributes.keys)
    }

    /// Whether the item's attributes are exactly `attributes`, ignoring those its provider added
    /// (see ``providerOwnedAttributes(of:)``). gnome-keyring's hashed form of an attribute on an item of a locked
    /// collection (`gkr:compat:hashed:NAME`) counts as `NAME` when it is the hash of the value in `attributes`.
    public func hasExactly(_ attributes: [String: String]) -> Bool {
        Self.attributes(self.attributes, matchExactly: attributes)
    }

    /// Whether an item's attributes `own` are exactly `wanted`, ignoring `xdg:schema` on either side and the other
    /// provider-owned attributes of `own` that `wanted` does not name. An item with any further attribute belongs to
    /// another tool.
    ///
    /// gnome-keyring shows an item of a locked collection that it loaded from disk with hashed attributes only:
    /// `gkr:compat:hashed:NAME` holding the lower-case hex MD5 of the value (gkm-secret-fields.c). Such an attribute
    /// counts as `NAME` when its hash is that of `wanted[NAME]`, so a locked item of ours is found as locked, never
    /// taken for another tool's and reported absent.
    static func attributes(_ own: [String: String], matchExactly wanted: [String: String]) -> Bool {
        var own = own
        for (key, value) in own where key.hasPrefix(hashedPrefix) {
            let name = String(key.dropFirst(hashedPrefix.count))
            if let plain = wanted[name], own[name] == nil, own[uint32Prefix + name] == nil, md5Hex(plain) == value {
                own.removeValue(forKey: key)
                own[name] = plain
            }
        }
        for key in providerOwnedAttributes(of: own) where key == schemaAttribute || wanted[key] == nil {
            own.removeValue(forKey: key)
        }
        var wanted = wanted
        wanted.removeValue(forKey: schemaAttribute)
        return own == wanted
    }

    /// The names of the attributes this item shows only hashed: gnome-keyring's `gkr:compat:hashed:NAME`, on an item
    /// of a collection it loaded locked from disk (at start, every collection but the login one), until that
    /// collection is unlocked. Their values are not known from the item; ``hasExactly(_:)`` matches them by hash.
    public var hashedAttributeNames: Set<String> {
        Set(attributes.keys.filter { $0.hasPrefix(Self.hashedPrefix) }.map { String($0.dropFirst(Self.hashedPrefix.count)) })
    }

    /// Whether the item's attributes are exactly `attributes` and, besides them, the ones named in `hashed`, whose
    /// values it shows only hashed (``hashedAttributeNames``): for listing the items of a locked collection by the
    /// attributes that are known, as `["service": S]` with `["account"]` hidden.
    public func hasExactly(_ attributes: [String: String], besidesHashed hashed: Set<String>) -> Bool {
        guard hashed.isSubset(of: hashedAttributeNames) else { return false }
        let hidden = Set(hashed.map { Self.hashedPrefix + $0 })
        return Self.attributes(self.attributes.filter { !hidden.contains($0.key) }, matchExactly: attributes)
    }

    /// gnome-keyring's name prefixes for the hashed form of an attribute, and for the marker of one that older
    /// versions stored as a number (hashed differently; never one of ours).
    private static let hashedPrefix = "gkr:compat:hashed:"
    private static let uint32Prefix = "gkr:compat:uint32:"

    /// The lower-case hex MD5 of `text`'s UTF-8 bytes, as gnome-keyring hashes a string attribute.
    private static func md5Hex(_ text: String) -> String {
        guard let digest = g_compute_checksum_for_string(G_CHECKSUM_MD5, text, -1) else { return "" }
        defer { g_free(digest) }
        return String(cString: digest)
    }
}
