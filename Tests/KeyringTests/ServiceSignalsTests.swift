import CLibSecret
@testable import Keyring
import Testing

/// What the message filter of ``Keyring/changes()`` makes of each signal it sees (``ServiceSignals``), with signals
/// built here as the bus would deliver them.
@Suite("The Secret Service's signals as changes")
struct ServiceSignalsTests {
    private let item = "/org/freedesktop/secrets/collection/login/7"

    /// A signal `member` of `interface` from the object at `path`, with `body` (floating, or none).
    private func change(
        _ interface: String, _ member: String, at path: String = "/org/freedesktop/secrets/collection/login",
        _ body: OpaquePointer?
    ) -> KeyringChange? {
        let message = g_dbus_message_new_signal(path, interface, member)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        if let body { g_dbus_message_set_body(message, body) }
        return ServiceSignals.change(announcedBy: message)
    }

    private func properties(of interface: String) -> OpaquePointer {
        let changed = Variant.withType("{sv}") { g_variant_new_array($0, nil, 0) }
        let invalidated = Variant.withType("s") { g_variant_new_array($0, nil, 0) }
        return Variant.tuple([Variant.string(interface), changed, invalidated])
    }

    @Test("ItemCreated, ItemChanged and ItemDeleted name their item")
    func itemSignalsNameTheirItem() {
        let collection = "org.freedesktop.Secret.Collection"
        #expect(change(collection, "ItemCreated", Variant.tuple([Variant.objectPath(item)])) == KeyringChange(.created, itemPath: item))
        #expect(change(collection, "ItemChanged", Variant.tuple([Variant.objectPath(item)])) == KeyringChange(.changed, itemPath: item))
        #expect(change(collection, "ItemDeleted", Variant.tuple([Variant.objectPath(item)])) == KeyringChange(.deleted, itemPath: item))
    }

    @Test("an ItemCreated without a path (KeePassXC's `/`) or without a body is a change of anything")
    func itemSignalWithoutPathIsAnything() {
        let collection = "org.freedesktop.Secret.Collection"
        #expect(change(collection, "ItemCreated", Variant.tuple([Variant.objectPath("/")])) == .anything)
        #expect(change(collection, "ItemDeleted", nil) == .anything)
    }

    @Test("PropertiesChanged of an item is a change of it; of a collection or the service, of no item")
    func propertiesChangedOfItemsOnly() {
        let properties = "org.freedesktop.DBus.Properties"
        #expect(change(properties, "PropertiesChanged", at: item, self.properties(of: "org.freedesktop.Secret.Item"))
            == KeyringChange(.changed, itemPath: item))
        #expect(change(properties, "PropertiesChanged", self.properties(of: "org.freedesktop.Secret.Collection")) == nil)
        #expect(change(properties, "PropertiesChanged", at: "/org/freedesktop/secrets", self.properties(of: "org.freedesktop.Secret.Service")) == nil)
    }

    @Test("a new owner of org.freedesktop.secrets is a change of anything; of another name, nothing")
    func ownerChangesOfTheServiceOnly() {
        func owner(_ name: String) -> KeyringChange? {
            change(
                "org.freedesktop.DBus", "NameOwnerChanged", at: "/org/freedesktop/DBus",
                Variant.tuple([Variant.string(name), Variant.string(""), Variant.string(":1.42")]))
        }
        #expect(owner("org.freedesktop.secrets") == .anything)
        #expect(owner(":1.42") == nil)
        #expect(owner("org.example.App") == nil)
    }

    @Test("a prompt completed changes no item; a collection locked, unlocked, created or deleted, anything")
    func collectionSignals() {
        let service = "org.freedesktop.Secret.Service"
        let collection = Variant.tuple([Variant.objectPath("/org/freedesktop/secrets/collection/login")])
        #expect(change(service, "CollectionChanged", at: "/org/freedesktop/secrets", collection) == .anything)
        #expect(change("org.freedesktop.Secret.Prompt", "Completed", at: "/org/freedesktop/secrets/prompt/u1", nil) == nil)
        let created = Variant.tuple([Variant.objectPath("/org/freedesktop/secrets/collection/new")])
        #expect(change(service, "CollectionCreated", at: "/org/freedesktop/secrets", created) == .anything)
        #expect(change("org.example.Other", "ItemCreated", Variant.tuple([Variant.objectPath(item)])) == nil)
    }
}
