import Foundation
import Keyring
import Testing

/// Which attributes are the provider's own, as plain values; the real KeePassXC case is in `ProviderStorageTests`.
@Suite("Provider-owned attributes")
struct ProviderAttributeTests {
    func item(_ attributes: [String: String]) -> KeyringItem {
        KeyringItem(path: "/org/freedesktop/secrets/collection/db/8df3", attributes: attributes, label: "L",
                    created: Date(timeIntervalSince1970: 0), modified: Date(timeIntervalSince1970: 0), isLocked: false)
    }

    let ours = ["service": "S", "account": "A"]
    /// What KeePassXC 2.7.4 reports for an item we created: its own fields next to ours.
    let keePassXC = ["Notes": "", "Path": "/OAuth tokens for A on S", "Title": "OAuth tokens for A on S", "URL": "",
                     "UserName": "", "Uuid": "8df3c0a1b2c3d4e5f60718293a4b5c6d"]

    @Test("an item KeePassXC exposes, with its Title, UserName, URL, Notes, Uuid, Path (and TOTP), is exactly ours")
    func keePassXCFieldsAreIgnored() {
        #expect(item(ours.merging(keePassXC) { $1 }).hasExactly(ours))
        #expect(item(ours.merging(keePassXC) { $1 }.merging(["TOTP": "otpauth://x"]) { $1 }).hasExactly(ours))
        // A person may fill in KeePassXC's fields; the item stays ours.
        #expect(item(ours.merging(keePassXC) { $1 }.merging(["UserName": "ada", "URL": "https://s"]) { $1 }).hasExactly(ours))
        #expect(KeyringItem.providerOwnedAttributes(of: ours.merging(keePassXC) { $1 }) == Set(keePassXC.keys))
    }

    @Test("any other extra attribute on a KeePassXC item still makes it another tool's")
    func otherExtraAttributeCounts() {
        #expect(!item(ours.merging(keePassXC) { $1 }.merging(["extra": "x"]) { $1 }).hasExactly(ours))
        #expect(!item(["service": "S"].merging(keePassXC) { $1 }).hasExactly(ours))
    }

    @Test("KeePassXC's field names count as another tool's attributes on an item without KeePassXC's full set")
    func partialKeePassXCSetIsNotIgnored() {
        #expect(!item(ours.merging(["Title": "T"]) { $1 }).hasExactly(ours))
        #expect(!item(ours.merging(["Uuid": "u", "Path": "/p"]) { $1 }).hasExactly(ours))
        #expect(KeyringItem.providerOwnedAttributes(of: ours.merging(["Title": "T"]) { $1 }).isEmpty)
    }

    @Test("a KeePassXC field the caller asks for is compared, not ignored")
    func askedForFieldIsCompared() {
        let wanted = ours.merging(["URL": "https://s"]) { $1 }
        #expect(item(ours.merging(keePassXC) { $1 }.merging(["URL": "https://s"]) { $1 }).hasExactly(wanted))
        #expect(!item(ours.merging(keePassXC) { $1 }).hasExactly(wanted))
    }
}
