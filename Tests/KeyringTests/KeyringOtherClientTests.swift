import Foundation
import Keyring
import KeyringTestSupport
import TestSupport
import Testing

/// Lookups after another client changed the item: every lookup reads the item's attributes as the service has them
/// now, so a change made elsewhere is seen at once (a process that remembered attributes would have to follow every
/// signal to be as right).
@Suite("Lookups after another client's change, against a real Secret Service", .needsSecretService)
struct KeyringOtherClientTests {
    let keyring = TestKeyring.keyring

    @Test("another client's change of the item's attributes is seen by the next lookup")
    func changeByAnotherClientIsSeen() async throws {
        let attributes = ["service": TestKeyring.uniqueService(), "account": "ada"]
        let extended = attributes.merging(["extra": "another tool's"]) { $1 }
        try await cleaningUp({ _ = try? await keyring.delete(extended); _ = try? await keyring.delete(attributes) }) {
            try await keyring.store("moved", label: "L", attributes: attributes)
            _ = try await keyring.lookup(attributes)
            _ = try await keyring.lookup(attributes)
            let found = try #require(try await keyring.lookup(attributes))

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
