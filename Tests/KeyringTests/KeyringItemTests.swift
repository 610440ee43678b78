import Foundation
import Keyring
import Testing

@Suite("KeyringItem")
struct KeyringItemTests {
    func item(_ attributes: [String: String]) -> KeyringItem {
        KeyringItem(path: "/org/freedesktop/secrets/collection/login/7", attributes: attributes, label: "L",
                    created: Date(timeIntervalSince1970: 0), modified: Date(timeIntervalSince1970: 0), isLocked: false)
    }

    @Test("exact matching ignores xdg:schema but not any other attribute")
    func exactMatch() {
        let wanted = ["service": "S", "account": "A"]
        #expect(item(wanted).hasExactly(wanted))
        #expect(item(wanted.merging(["xdg:schema": "org.example"]) { $1 }).hasExactly(wanted))
        #expect(!item(wanted.merging(["extra": "x"]) { $1 }).hasExactly(wanted))
        #expect(!item(["service": "S"]).hasExactly(wanted))
    }

    @Test("the collection path is the item path without its last component")
    func collectionPath() {
        #expect(item([:]).collectionPath == "/org/freedesktop/secrets/collection/login")
    }

    @Test("an error's description says what happened and how to fix it, and each kind is distinct")
    func errorCodesAreDistinct() {
        let codes: [KeyringError.Code] = [.serviceUnavailable, .locked, .timedOut, .notFound, .noDefaultCollection, .misconfigured,
                                          .secretTooLarge, .notText, .other]
        #expect(Set(codes).count == codes.count)
    }
}
