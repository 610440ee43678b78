import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SandboxKeyringFile {
    static let header: [UInt8] = Array("GnomeKeyring\n\r\0\n".utf8)

    /// Throws when the file at `path` exists and is not a keyring file libsecret can read without aborting.
    static func check(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyringError(
                .misconfigured, "The app's keyring file \(path) cannot be read.",
                fix: "Check that it belongs to this user and is readable and writable (chmod 600).")
        }
        if let problem = problem(in: data) {
            throw KeyringError(
                .misconfigured, "The app's keyring file \(path) is damaged: \(problem).",
                fix: "Move it aside (mv '\(path)' '\(path).damaged'); the app then starts with an empty keyring and "
                    + "signs in again.")
        }
    }

    /// Why `data` is not a keyring file, or `nil` when it is one. An empty file is not (libsecret refuses its header);
    /// a missing one is fine (libsecret starts one).
    static func problem(in data: Data) -> String? {
        guard !data.isEmpty else { return "it is empty" }
        guard data.count >= header.count + 2, Array(data.prefix(header.count)) == header else {
            return "its header is not libsecret's"
        }
        guard data[data.startIndex + header.count] == 1, data[data.startIndex + header.count + 1] == 0 else {
            return "it is not of version 1.0"
        }
        let body = data.dropFirst(header.count + 2)
        let bytes = body.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        return Variant.withType("(uayutua(a{say}ay))") { type -> String? in
            let variant = g_variant_ref_sink(g_variant_new_from_bytes(type, bytes, 0))
            defer { g_variant_unref(variant) }
            guard g_variant_is_normal_form(variant) != 0 else { return "its contents are not well-formed" }
            let size = g_variant_get_child_value(variant, 0)
            let salt = g_variant_get_child_value(variant, 1)
            defer {
                g_variant_unref(size)
                g_variant_unref(salt)
            }
            guard UInt32(littleEndian: g_variant_get_uint32(size)) == UInt32(g_variant_n_children(salt)) else {
                return "its salt is not as long as it says"
            }
            // libsecret writes 100000; a damaged count would make the key derivation run for hours.
            let iterations = g_variant_get_child_value(variant, 2)
            defer { g_variant_unref(iterations) }
            guard (1...10_000_000).contains(UInt32(littleEndian: g_variant_get_uint32(iterations))) else {
                return "its key derivation count is out of range"
            }
            return nil
        }
    }
}
