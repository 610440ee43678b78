import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension AppKeyringFile {
    static let header: [UInt8] = Array("GnomeKeyring\n\r\0\n".utf8)

    /// The largest keyring file read: 16 MiB. libsecret writes a few hundred bytes per item (a secret of this package
    /// is at most 8 KiB), so this is thousands of the largest items; a larger file at that path is not a keyring file
    /// of this app, and reading it whole would cost as much memory.
    static let maximumSize = 16 << 20

    /// Throws `misconfigured` when the file at `path` exists and is not a keyring file libsecret can read without
    /// aborting (or without waiting for ever).
    ///
    /// The path may hold anything another program put there: it is opened without waiting (`O_NONBLOCK`, so a FIFO
    /// does not hang the open), refused unless it is a regular file (libsecret would wait on a FIFO's read for ever)
    /// of at most ``maximumSize`` bytes, and read up to one byte more than that, whatever its size said.
    static func check(_ path: String) throws {
        guard let data = try contents(of: path) else { return }
        if let problem = problem(in: data) { throw KeyringError.appKeyringFileDamaged(path, problem) }
    }

    /// The bytes of the file at `path`, read as ``check(_:)`` reads them; `nil` when there is no file there. Throws
    /// `misconfigured` when it cannot be read, is not a regular file or is larger than ``maximumSize``.
    static func contents(of path: String) throws -> Data? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw KeyringError.appKeyringFileUnusable(path, "cannot be opened", errno: errno)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw KeyringError.appKeyringFileUnusable(path, "cannot be examined", errno: errno)
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw KeyringError.appKeyringFileNotRegular(path) }
        guard info.st_size <= maximumSize else { throw KeyringError.appKeyringFileTooLarge(path, limit: maximumSize) }
        // The size said is only what it was: read no more than one byte past the limit, whatever it is now.
        let data = try readAtMost(maximumSize + 1, from: descriptor, path: path)
        guard data.count <= maximumSize else { throw KeyringError.appKeyringFileTooLarge(path, limit: maximumSize) }
        return data
    }

    /// Up to `limit` bytes of `descriptor`, read to its end or to the limit.
    private static func readAtMost(_ limit: Int, from descriptor: Int32, path: String) throws -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while data.count < limit {
            let wanted = min(chunk.count, limit - data.count)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
            if count == 0 { break }
            guard count > 0 else {
                if errno == EINTR { continue }
                throw KeyringError.appKeyringFileUnusable(path, "cannot be read", errno: errno)
            }
            data.append(contentsOf: chunk[0..<count])
        }
        return data
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
