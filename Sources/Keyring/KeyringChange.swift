/// A change of keyring items that the Secret Service announced on the session bus, as ``Keyring/changes()``
/// delivers it: an item created, changed or deleted, or "anything may have changed".
///
/// It says only *that* something changed, never what the item holds now: read the item again to learn that. Changes
/// are announced by whichever process made them — this one, another app, `secret-tool`, the keyring's own window.
public struct KeyringChange: Sendable, Hashable, CustomStringConvertible {
    /// What happened. New kinds may be added; switch over it with a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case created, changed, deleted, anything
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// An item was created (`ItemCreated`). It may be a new item with the attributes you read, which a lookup
        /// would now find. gnome-keyring announces an item replaced in place by `CreateItem` (`secret-tool store`
        /// over an existing item) this way too, with the existing item's path.
        public static let created = Kind(.created)
        /// An item's secret, label or attributes changed (`ItemChanged`, or `PropertiesChanged` of the item).
        public static let changed = Kind(.changed)
        /// An item was deleted (`ItemDeleted`).
        public static let deleted = Kind(.deleted)
        /// Any item may have changed, and ``KeyringChange/itemPath`` is `nil`: another process took over the Secret
        /// Service's bus name (the keyring restarted, or another provider started), a collection was created,
        /// deleted, locked or unlocked (what could not be read may be readable now), a signal could not be read,
        /// several changes were folded into one because the subscriber fell behind, or this process's connection to
        /// the bus was replaced. Read again whatever you hold.
        public static let anything = Kind(.anything)

        /// The kind's name.
        public var description: String { base.rawValue }
    }

    /// What happened.
    public let kind: Kind
    /// The D-Bus object path of the item (``KeyringItem/path``, ``KeyringSecret/path``), or `nil` for
    /// ``Kind/anything``.
    public let itemPath: String?

    /// A change of `kind` to the item at `itemPath`; without a path, or with ``Kind/anything``, a change of anything.
    public init(_ kind: Kind, itemPath: String?) {
        if let itemPath, kind != .anything {
            self.kind = kind
            self.itemPath = itemPath
        } else {
            self.kind = .anything
            self.itemPath = nil
        }
    }

    /// Any item may have changed.
    public static let anything = KeyringChange(.anything, itemPath: nil)

    /// Whether this change may concern what a lookup found at `path` (`nil`: the lookup found nothing), so that
    /// it should be read again: ``Kind/anything``, any item created (it may carry the same attributes, and a lookup
    /// prefers the most recently modified of several exact items), or a change or deletion of the item at `path`.
    public func mayConcern(itemAt path: String?) -> Bool {
        guard let itemPath, kind != .created else { return true }
        return itemPath == path
    }

    /// The kind and the item's path, such as `deleted /org/freedesktop/secrets/collection/login/12`.
    public var description: String {
        itemPath.map { "\(kind) \($0)" } ?? "\(kind)"
    }
}
