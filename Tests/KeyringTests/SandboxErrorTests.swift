import CLibSecret
import Foundation
@testable import Keyring
import KeyringTestSupport
import Testing
import TestSupport

/// The failures libsecret's file backend reports in a sandbox (measured in the simulated Flatpak sandbox, see
/// docs/notes/flatpak-investigation.md), each told as its own ``KeyringError``, with advice that fits a sandbox.
@Suite("Keyring in a sandbox: libsecret's failures, each its own error")
struct SandboxErrorTests {
    static let file = "/home/u/.var/app/org.example.App/data/keyrings/default.keyring"

    /// The error `Keyring` makes of a GError of `domain`, `code` and `message`.
    static func mapped(_ domain: GQuark, _ code: Int32, _ message: String) -> KeyringError {
        let error = g_error_new_literal(domain, code, message)!
        defer { g_error_free(error) }
        let info = GErrorInfo(error)
        return SandboxFailure(info).error(info, doing: "looking up", file: file)
    }

    @Test("each failure libsecret reports there gets its own code", arguments: [
        (g_dbus_error_quark(), Int32(G_DBUS_ERROR_SERVICE_UNKNOWN.rawValue), "org.freedesktop.DBus.Error.ServiceUnknown", "portalUnavailable"),
        (g_io_error_quark(), Int32(G_IO_ERROR_FAILED.rawValue), "user interaction failed", "locked"),
        (g_io_error_quark(), Int32(G_IO_ERROR_CANCELLED.rawValue), "user interaction cancelled", "portalRefused"),
        (secret_error_get_quark(), Int32(SECRET_ERROR_PROTOCOL.rawValue), "invalid password returned from portal", "portalRefused"),
        (g_io_error_quark(), Int32(G_IO_ERROR_TIMED_OUT.rawValue), "Timeout was reached", "timedOut"),
        (secret_error_get_quark(), Int32(SECRET_ERROR_INVALID_FILE_FORMAT.rawValue), "file header mismatch", "misconfigured"),
        (secret_error_get_quark(), Int32(SECRET_ERROR_PROTOCOL.rawValue), "couldn't derive key", "misconfigured"),
        (secret_error_get_quark(), Int32(SECRET_ERROR_PROTOCOL.rawValue), "couldn't calculate mac", "locked"),
        (g_io_error_quark(), Int32(G_IO_ERROR_PERMISSION_DENIED.rawValue), "Permission denied", "misconfigured"),
        (g_io_error_quark(), Int32(G_IO_ERROR_NO_SPACE.rawValue), "Error writing to file: No space left on device", "misconfigured"),
        (g_io_error_quark(), Int32(G_IO_ERROR_WRONG_ETAG.rawValue), "The file was externally modified", "other"),
    ] as [(GQuark, Int32, String, String)])
    func mapping(domain: GQuark, code: Int32, message: String, expected: String) {
        let error = Self.mapped(domain, code, message)
        #expect(error.code.description == expected, "\(message): \(error)")
        #expect(!error.description.contains("dbus-run-session"), "no host-session advice in a sandbox: \(error)")
    }

    @Test("the file's problems name the file; the host keyring's and the portal's name the host")
    func advice() {
        let damaged = Self.mapped(secret_error_get_quark(), Int32(SECRET_ERROR_INVALID_FILE_FORMAT.rawValue), "version mismatch")
        // checks the sentence's help: the file's problems name the file, the others the host (three checks).
        #expect(damaged.reason.contains(Self.file) && damaged.fix.contains("Move it aside"))
        let locked = Self.mapped(g_io_error_quark(), Int32(G_IO_ERROR_FAILED.rawValue), "user interaction failed")
        #expect(locked.fix.contains("on the host"))
        let noPortal = Self.mapped(g_dbus_error_quark(), Int32(G_DBUS_ERROR_SERVICE_UNKNOWN.rawValue), "ServiceUnknown")
        #expect(noPortal.fix.contains("xdg-desktop-portal"))
        // A full disk says so, not "check the file's owner and mode" (what it said before).
        let full = Self.mapped(g_io_error_quark(), Int32(G_IO_ERROR_NO_SPACE.rawValue), "Error writing to file: No space left on device")
        #expect(full.reason.contains("is full") && full.fix.contains("Free some space") && !full.fix.contains("chmod"), "\(full)")
    }

    @Test("a keyring file is checked before libsecret reads it: libsecret aborts on a damaged body")
    func fileCheck() {
        let header = Data(AppKeyringFile.header) + Data([1, 0])
        #expect(AppKeyringFile.problem(in: Data()) == "it is empty")
        #expect(AppKeyringFile.problem(in: Data("GnomeKeyring".utf8)) == "its header is not libsecret's")
        #expect(AppKeyringFile.problem(in: Data(AppKeyringFile.header) + Data([2, 0])) == "it is not of version 1.0")
        #expect(AppKeyringFile.problem(in: header + Data([0xFF, 0x00, 0x13])) != nil, "a body cut short")
        // A well-formed body: salt of 2 bytes, 100000 iterations, no items.
        let body = Variant.withType("(uayutua(a{say}ay))") { type -> Data in
            let value = g_variant_ref_sink(g_variant_parse(type, "(2, [byte 1, 2], 100000, 0, 0, @a(a{say}ay) [])", nil, nil, nil))
            defer { g_variant_unref(value) }
            return Data(bytes: g_variant_get_data(value)!, count: Int(g_variant_get_size(value)))
        }
        #expect(AppKeyringFile.problem(in: header + body) == nil)
        let lying = Variant.withType("(uayutua(a{say}ay))") { type -> Data in
            let value = g_variant_ref_sink(g_variant_parse(type, "(16, [byte 1, 2], 100000, 0, 0, @a(a{say}ay) [])", nil, nil, nil))
            defer { g_variant_unref(value) }
            return Data(bytes: g_variant_get_data(value)!, count: Int(g_variant_get_size(value)))
        }
        #expect(AppKeyringFile.problem(in: header + lying) == "its salt is not as long as it says")
    }

    /// Bytes this thread has read through `read` and its kin so far (`rchar` of `/proc/thread-self/io`).
    private static func bytesReadByThisThread() throws -> Int {
        let text = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("rchar:") })
        return try #require(Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)))
    }

    @Test("a keyring file over 16 MiB is refused as not the app's, without reading it whole")
    func oversizedFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("default.keyring").path
        // 256 MiB that take no disk (a sparse file), with libsecret's header: only its size is wrong.
        try (Data(AppKeyringFile.header) + Data([1, 0])).write(to: URL(fileURLWithPath: path))
        #expect(truncate(path, 256 << 20) == 0)
        // A synchronous test: the check runs on this thread, whose own count of bytes read is not disturbed by the
        // tests running beside it.
        let before = try Self.bytesReadByThisThread()
        let error = #expect(throws: KeyringError.self) { try AppKeyringFile.check(path) }
        let read = try Self.bytesReadByThisThread() - before
        #expect(error == .appKeyringFileTooLarge(path, limit: AppKeyringFile.maximumSize), "\(String(describing: error))")
        #expect(read < AppKeyringFile.maximumSize, "read \(read) bytes of a 256 MiB file")
    }

    @Test("a FIFO or a directory at the keyring file's path is refused at once (libsecret would wait on a FIFO for ever)")
    func notARegularFile() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.url.appendingPathComponent("fifo.keyring").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Nobody writes into the FIFO: an open or read that waits would hang this test.
        let error = #expect(throws: KeyringError.self) { try AppKeyringFile.check(fifo) }
        #expect(error == .appKeyringFileNotRegular(fifo), "\(String(describing: error))")
        let folder = directory.url.appendingPathComponent("folder.keyring").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let notFile = #expect(throws: KeyringError.self) { try AppKeyringFile.check(folder) }
        #expect(notFile == .appKeyringFileNotRegular(folder), "\(String(describing: notFile))")
        // A missing file is fine: libsecret starts one.
        try AppKeyringFile.check(directory.url.appendingPathComponent("missing.keyring").path)
    }
}
