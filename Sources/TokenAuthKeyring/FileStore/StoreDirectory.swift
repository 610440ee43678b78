#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The directory of ``FileAuthStore`` and the system calls on its files: the one place where the store touches the
/// file system. Every failure is a `TokenAuthError` with code `storageFailed` naming the path, never a secret.
///
/// - The directory is made `0700`; one that is open to other users or owned by another user is refused (every read
///   and write fails, naming `chmod 700`), never repaired silently: the tokens in it may already have been read.
/// - Files are read only when they are regular files (not links) of this user that no other user can read (`0600`).
/// - A write goes to a temporary file in the same directory, created `0600` (`mkstemp`), written whole and
///   `fsync`ed, then renamed over the item and the directory `fsync`ed: a reader, or a process killed at any
///   moment, sees the old file or the new one, never a part. A killed writer's temporary file is removed by the
///   next write of the item.
struct StoreDirectory: Sendable {
    /// The directory.
    let path: String

    /// The largest file read: a token bundle is a few KiB.
    static let maximumFileSize = 1024 * 1024

    /// The path of the file `name` in the directory.
    func path(of name: String) -> String { path + "/" + name }

    // MARK: The directory

    /// Whether the directory exists; throws when it exists but is not safe to use.
    func exists() throws -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else {
            guard errno == ENOENT else { throw failure(path, "it cannot be examined (\(Self.systemError()))") }
            return false
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw failure(path, "it is not a directory", fix: "Move it away, or choose another directory.")
        }
        try checkOwnerAndMode(of: info, at: path, allowed: 0o700, fix: "Run `chmod 700 \(path)`")
        return true
    }

    /// Makes the directory (`0700`, and its missing parents `0700`) when it is missing, and checks it.
    func create() throws {
        guard try !exists() else { return }
        let parent = URL(filePath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(
                atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw failure(parent, "it cannot be created (\(Self.describe(error)))")
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw failure(path, "it cannot be created (\(Self.systemError()))")
        }
        _ = try exists()
    }

    /// The names of the files in the directory (none when it is missing).
    func names() throws -> [String] {
        guard try exists() else { return [] }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw failure(path, "it cannot be listed (\(Self.describe(error)))")
        }
    }

    // MARK: Files

    /// The bytes of file `name`, or `nil` when there is none.
    func read(_ name: String) throws -> [UInt8]? {
        guard try exists() else { return nil }
        let file = path(of: name)
        let descriptor = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP {
                throw failure(file, "it is a symbolic link", fix: "Replace the link by the file itself, or remove it.")
            }
            throw failure(file, "it cannot be opened (\(Self.systemError()))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(file, "it cannot be examined (\(Self.systemError()))") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw failure(file, "it is not a regular file", fix: "Move it away; the next sign-in writes the file anew.")
        }
        try checkOwnerAndMode(
            of: info, at: file, allowed: 0o600,
            fix: "Run `chmod 600 \(file)`; anyone who could read it may have copied the tokens, so sign out and in "
                + "again if that matters")
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            guard count > 0 else {
                if errno == EINTR { continue }
                throw failure(file, "it cannot be read (\(Self.systemError()))")
            }
            bytes += chunk[0..<count]
            guard bytes.count <= Self.maximumFileSize else {
                throw failure(file, "it is larger than \(Self.maximumFileSize) bytes", fix: "Move it away.")
            }
        }
    }

    /// Replaces file `name` by `bytes` atomically (see the type's overview), making the directory when it is missing.
    func write(_ bytes: [UInt8], to name: String) throws {
        try create()
        removeAbandonedTemporaries(of: name)
        let temporary = try writeTemporary(bytes, for: name)
        guard rename(temporary, path(of: name)) == 0 else {
            let error = Self.systemError()
            unlink(temporary)
            throw failure(path(of: name), "the new file could not be moved into place (\(error))")
        }
        try syncDirectory()
    }

    /// Keeps file `name` as `NAME.corrupt-STAMP` (`-2`, `-3`, … when taken) by a second link, so that the next write
    /// replaces the item without destroying what it held; the item's own name stays in place until then.
    /// - Returns: the path it is kept at.
    func keepAside(_ name: String, stamp: String) throws -> String {
        for attempt in 1...100 {
            let aside = path(of: "\(name).corrupt-\(stamp)" + (attempt > 1 ? "-\(attempt)" : ""))
            if link(path(of: name), aside) == 0 {
                try syncDirectory()
                return aside
            }
            guard errno == EEXIST else {
                throw failure(
                    aside, "the unreadable file \(name) could not be kept there (\(Self.systemError())), so it was not "
                        + "replaced", fix: "Move \(path(of: name)) away by hand, then try again.")
            }
        }
        throw failure(path(of: name), "too many files are kept aside already", fix: "Remove old \(name).corrupt-* files.")
    }

    /// Removes file `name`.
    /// - Returns: whether there was one.
    func remove(_ name: String) throws -> Bool {
        guard try exists() else { return false }
        guard unlink(path(of: name)) == 0 else {
            if errno == ENOENT { return false }
            throw failure(path(of: name), "it cannot be removed (\(Self.systemError()))")
        }
        try syncDirectory()
        return true
    }

    // MARK: Helpers

    /// Writes `bytes` to a new temporary file beside `name`'s, `0600` from its creation, and syncs it.
    /// - Returns: its path.
    private func writeTemporary(_ bytes: [UInt8], for name: String) throws -> String {
        var template = Array("\(path(of: "." + name)).tmp-\(getpid())-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)  // O_EXCL, mode 0600
        guard descriptor >= 0 else { throw failure(path, "no temporary file can be made in it (\(Self.systemError()))") }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var closed = false
        do {
            defer { if !closed { close(descriptor) } }
            guard fchmod(descriptor, 0o600) == 0 else { throw failure(temporary, "its mode cannot be set (\(Self.systemError()))") }
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
                guard count >= 0 else {
                    if errno == EINTR { continue }
                    throw failure(temporary, "it cannot be written (\(Self.systemError()))")
                }
                written += count
            }
            guard fsync(descriptor) == 0 else { throw failure(temporary, "it cannot be synced (\(Self.systemError()))") }
            closed = true
            guard close(descriptor) == 0 else { throw failure(temporary, "it cannot be closed (\(Self.systemError()))") }
        } catch {
            unlink(temporary)
            throw error
        }
        return temporary
    }

    /// Removes the temporary files of `name` that processes which no longer run left behind (killed while writing).
    private func removeAbandonedTemporaries(of name: String) {
        let prefix = "." + name + ".tmp-"
        for file in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where file.hasPrefix(prefix) {
            guard let writer = Int32(file.dropFirst(prefix.count).prefix { $0 != "-" }), writer != getpid() else { continue }
            if kill(writer, 0) != 0, errno == ESRCH { unlink(path(of: file)) }
        }
    }

    /// Makes the directory's entries durable (a rename or unlink in it).
    private func syncDirectory() throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, "it cannot be opened to sync (\(Self.systemError()))") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure(path, "it cannot be synced (\(Self.systemError()))") }
    }

    /// Refuses `info` unless it belongs to this user and has no permission bit outside `allowed`.
    private func checkOwnerAndMode(of info: stat, at path: String, allowed: mode_t, fix: String) throws {
        guard info.st_uid == geteuid() else {
            throw failure(path, "it belongs to another user (uid \(info.st_uid)), so it was not used", fix: "Remove it, or "
                + "choose another directory.")
        }
        let mode = info.st_mode & 0o7777
        guard mode & ~allowed == 0 else {
            throw failure(
                path, "its mode \(String(mode, radix: 8)) lets other users in, so it was not used", fix: fix + ".")
        }
    }

    private func failure(_ path: String, _ problem: String, fix: String? = nil) -> TokenAuthError {
        TokenAuthError.storageFailed(
            path, problem, fix: fix ?? "Check that \(self.path) is a directory of yours with room left on its disk.")
    }

    private static func systemError() -> String { String(cString: strerror(errno)) }

    /// A `FileManager` error in a few words: the system's sentence for its POSIX cause when it has one.
    private static func describe(_ error: any Error) -> String {
        guard let code = ((error as? CocoaError)?.underlying as? POSIXError)?.code.rawValue else { return "\(error)" }
        return String(cString: strerror(code))
    }
}
