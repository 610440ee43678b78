import CLibSecret
import Foundation
@testable import Keyring
import KeyringTestSupport
import Testing

/// The attributes a lookup remembers (``AttributeCache``) on each provider: used again, and forgotten when another
/// client changes the item.
@Suite("Remembered attributes against a real Secret Service", .needsSecretService)
struct AttributeCacheTests {
    let keyring = TestKeyring.keyring

    @Test("a lookup of an item read before asks only for its secret (not on KWallet, which changes attributes silently)")
    func rememberedAttributesAreUsed() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let stored = try await keyring.store("kept", label: "L", attributes: attributes)
            // The first lookup reads the attributes; the store's own change signals may still be on their way, so a
            // second one makes sure they have been seen.
            _ = try await keyring.lookup(attributes)
            _ = try await keyring.lookup(attributes)
            let before = AttributeCache.hits(stored.path)

            let found = try #require(try await keyring.lookup(attributes))
            #expect(found.secret == "kept")
            #expect(found.path == stored.path)
            // kwalletd5 announces no change of attributes, so nothing of its items is remembered.
            #expect(AttributeCache.hits(stored.path) == before + (TestProvider.current == .kwallet ? 0 : 1))
        }
    }

    @Test("on gnome-keyring, a lookup of a remembered item is answered without a thread of its own, with its secret")
    func rememberedItemIsReadWithoutABlockingCall() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let stored = try await keyring.store("fast ✓", label: "L", attributes: attributes)
            _ = try await keyring.lookup(attributes)
            _ = try await keyring.lookup(attributes)
            let before = FastLookup.answers(stored.path)

            let found = try #require(try await keyring.lookup(attributes))
            #expect(found.secret == "fast ✓")
            #expect(found.path == stored.path)
            #expect(found.attributes.filter { !KeyringItem.providerOwnedAttributes(of: found.attributes).contains($0.key) } == attributes)
            // Only gnome-keyring is asked this way (KeePassXC may hold a search for its unlock dialog).
            #expect(FastLookup.answers(stored.path) == before + (TestProvider.current == .gnomeKeyring ? 1 : 0))

            // A new secret (its ItemChanged forgets the attributes) is read, not the old one.
            try await keyring.store("fast, again", label: "L", attributes: attributes)
            #expect(try await keyring.lookup(attributes)?.secret == "fast, again")
        }
    }

    @Test("another bus name changing owners leaves the cache on (an app may watch other names)")
    func otherNamesChangingOwnersAreIgnored() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(attributes) }) {
            let stored = try await keyring.store("watched", label: "L", attributes: attributes)
            _ = try await keyring.lookup(attributes)
            _ = try await keyring.lookup(attributes)
            // As g_bus_watch_name would for an app's own names: every NameOwnerChanged now reaches this process.
            let service = try #require(ConnectedService.current)
            let connection = try #require(clibsecret_service_connection(service.pointer))
            let subscription = g_dbus_connection_signal_subscribe(
                connection, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus",
                nil, G_DBUS_SIGNAL_FLAGS_NONE, { _, _, _, _, _, _, _ in }, nil, nil)
            defer { g_dbus_connection_signal_unsubscribe(connection, subscription) }
            // The bus answers in order: once this reply is here, the subscription's match rule is in place.
            let ping = g_dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")!
            defer { g_object_unref(UnsafeMutableRawPointer(ping)) }
            g_object_unref(UnsafeMutableRawPointer(try await PendingCall.reply(to: ping, on: connection, timeout: .seconds(10)).message))
            // A client that comes and goes: its unique name gets an owner and loses it.
            let other = try await runCommand(
                "/usr/bin/gdbus", ["call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                   "--method", "org.freedesktop.DBus.GetId"])
            #expect(other.status == 0)
            let before = AttributeCache.hits(stored.path)

            #expect(try await keyring.lookup(attributes)?.secret == "watched")
            #expect(AttributeCache.hits(stored.path) == before + (TestProvider.current == .kwallet ? 0 : 1))
        }
    }

    @Test("another client's change of the item's attributes is seen by the next lookup")
    func changeByAnotherClientIsSeen() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        let extended = attributes.merging(["extra": "another tool's"]) { $1 }
        try await cleaningUp({ _ = try? await keyring.delete(extended); _ = try? await keyring.delete(attributes) }) {
            try await keyring.store("moved", label: "L", attributes: attributes)
            _ = try await keyring.lookup(attributes)
            _ = try await keyring.lookup(attributes)
            let found = try #require(try await keyring.lookup(attributes))
            if TestProvider.current != .kwallet {
                #expect(AttributeCache.hits(found.path) > 0, "the attributes were not remembered, so this test proves nothing")
            }

            // One more attribute; the provider keeps its own (KeePassXC's Title, Uuid…), which it will not take in a Set.
            try await setAttributes(of: found.path, to: extended)

            #expect(try await keyring.lookup(attributes) == nil)
            #expect(try await keyring.lookup(extended)?.secret == "moved")
        }
    }

    @Test("an item deleted and stored again by another client is read from the new item")
    func replacementByAnotherClientIsRead() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        // `delete` leaves the item with an extra attribute alone (it is another tool's); `secret-tool clear`
        // removes every item that has these two.
        let clear = ["clear", "service", attributes["service"]!, "account", "ada"]
        try await cleaningUp({ _ = try? await TestKeyring.secretTool(clear) }) {
            try await keyring.store("first", label: "L", attributes: attributes)
            _ = try await keyring.lookup(attributes)
            _ = try await keyring.lookup(attributes)

            let cleared = try await TestKeyring.secretTool(clear)
            #expect(cleared.status == 0)
            let stored = try await TestKeyring.secretTool(
                ["store", "--label", "L", "service", attributes["service"]!, "account", "ada", "extra", "x"], stdin: "second")
            #expect(stored.status == 0)

            #expect(try await keyring.lookup(attributes) == nil)
        }
    }

    /// Sets the item's `Attributes` property from another D-Bus connection, as another tool would.
    private func setAttributes(of path: String, to attributes: [String: String]) async throws {
        func quoted(_ text: String) -> String {
            "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        }
        let map = attributes.sorted { $0.key < $1.key }.map { "\(quoted($0.key)): \(quoted($0.value))" }.joined(separator: ", ")
        let result = try await runCommand(
            "/usr/bin/gdbus",
            ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", path,
             "--method", "org.freedesktop.DBus.Properties.Set", "org.freedesktop.Secret.Item", "Attributes", "<{\(map)}>"])
        #expect(result.status == 0, "Set Attributes failed: \(result.stderr)")
    }
}
