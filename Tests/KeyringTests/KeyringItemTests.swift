import CLibSecret
import Foundation
@testable import Keyring
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

    /// What gnome-keyring shows of a locked collection it loaded from disk: MD5 hashes (md5("ada"), md5("app")).
    @Test("gnome-keyring's hashed attributes of a locked item match exactly when their hashes are those of ours")
    func hashedAttributesMatch() {
        let ours = ["service": "app", "account": "ada"]
        let hashed = [
            "gkr:compat:hashed:account": "8c8d357b5e872bbacd45197626bd5759",
            "gkr:compat:hashed:service": "d2a57dc1d883fd21fb9951699df71cc7",
            "xdg:schema": "org.freedesktop.Secret.Generic",
        ]
        #expect(item(hashed).hasExactly(ours))
        #expect(!item(hashed).hasExactly(["service": "app", "account": "bob"]), "another account's hash")
        #expect(!item(hashed).hasExactly(["service": "app"]), "a hashed attribute we did not ask for is another tool's")
        #expect(!item(hashed).hasExactly(["service": "app", "account": "ada", "extra": "x"]))
        var more = hashed
        more["gkr:compat:hashed:extra"] = "0"
        #expect(!item(more).hasExactly(ours), "an extra hashed attribute makes it another tool's")
        var number = hashed
        number["gkr:compat:uint32:account"] = ""
        #expect(!item(number).hasExactly(ours), "an attribute once stored as a number is not ours")
    }

    @Test("a locked item's hashed account: named as hashed, and matched by the attributes that are known besides it")
    func hashedAccountBesidesKnown() {
        let hashed = [
            "gkr:compat:hashed:account": "8c8d357b5e872bbacd45197626bd5759",
            "gkr:compat:hashed:service": "d2a57dc1d883fd21fb9951699df71cc7",
            "xdg:schema": "org.freedesktop.Secret.Generic",
        ]
        #expect(item(hashed).hashedAttributeNames == ["account", "service"])
        #expect(item(["service": "app", "account": "ada"]).hashedAttributeNames.isEmpty)
        #expect(item(hashed).hasExactly(["service": "app"], besidesHashed: ["account"]))
        #expect(!item(hashed).hasExactly(["service": "other"], besidesHashed: ["account"]), "another service's hash")
        #expect(!item(hashed).hasExactly(["service": "app"], besidesHashed: ["user"]), "no hashed attribute of that name")
        var more = hashed
        more["gkr:compat:hashed:extra"] = "0"
        #expect(!item(more).hasExactly(["service": "app"], besidesHashed: ["account"]), "an extra attribute: another tool's")
        #expect(!item(["service": "app", "account": "ada"]).hasExactly(["service": "app"], besidesHashed: ["account"]))
        let error = KeyringError.hashedWhileLocked(item(hashed))
        #expect(error.code == .locked)
        #expect(error.isStorageFailure)
        #expect(error.description.contains("account, service"), "\(error)")
    }

    @Test("the collection path is the item path without its last component")
    func collectionPath() {
        #expect(item([:]).collectionPath == "/org/freedesktop/secrets/collection/login")
    }

    @Test("each kind of failure has its own code, and its description says what happened and how to fix it")
    func errorCodesAreDistinct() {
        // Made by the factories the library throws from, not by naming the constants.
        let errors: [KeyringError] = [
            .serviceUnavailable("no bus"), .locked("prompting is disabled"), .timedOut(after: .seconds(5), nil),
            .notFound(nil), .noDefaultCollection("no collection default"), .secretTooLarge(size: 9000, limit: 8192),
            .notText("/org/freedesktop/secrets/collection/login/7"), .other("The call failed.", "g-io-error-quark/1: x"),
            .kwalletCryptoPluginMissing("createDLGroup failed"),
        ]
        #expect(errors.map(\.code) == [
            .serviceUnavailable, .locked, .timedOut, .notFound, .noDefaultCollection, .secretTooLarge, .notText, .other,
            .misconfigured,
        ])
        #expect(Set(errors.map(\.code.description)).count == errors.count, "each code has its own name")
        for error in errors {
            #expect(!error.reason.isEmpty && !error.fix.isEmpty, "\(error.code)")
            // checks the sentence's help: what happened, then what to do (two checks).
            #expect(error.description == "\(error.reasonWithCause) \(error.fix)", "\(error.code)")
            #expect(error.reasonWithCause.hasPrefix(error.reason.hasSuffix(".") ? String(error.reason.dropLast()) : error.reason))
        }
    }

    @Test("a GLib error is named in words in the description; its domain and code stay in `underlying`")
    func causeInWords() throws {
        let cases: [(GQuark, Int32, String, String)] = [
            (g_io_error_quark(), Int32(G_IO_ERROR_FAILED.rawValue), "Could not connect: No such file or directory",
             "Could not connect: No such file or directory"),
            (g_dbus_error_quark(), Int32(G_DBUS_ERROR_SERVICE_UNKNOWN.rawValue),
             "GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: The name is not activatable",
             "The name is not activatable"),
        ]
        for (domain, code, message, words) in cases {
            let gError = try #require(g_error_new_literal(domain, code, message))
            defer { g_error_free(gError) }
            let info = GErrorInfo(gError)
            for error in [KeyringError.serviceUnavailable(info.detail), .other("The call failed.", info.detail)] {
                // checks the sentence's help: GLib's cause, in words.
                #expect(error.description.contains(" (\(words)). "), "\(error.description)")
                #expect(!error.description.contains("quark") && !error.description.contains("/\(code)"), "\(error.description)")
                #expect(error.underlying.map { "\($0)" } == "\(info.domain)/\(code): \(message)")
                #expect((error.underlying as? GLibError) == GLibError(domain: info.domain, code: code, message: message))
            }
        }
    }
}
