#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TokenAuth

/// A ``StoreDirectory`` opened and checked by ``StoreDirectory/withDirectory(creating:_:)``: its files, reached by name
/// through the directory's descriptor. Valid only inside that call, which closes the descriptor.
package struct OpenStoreDirectory {
    /// The directory's descriptor.
    let descriptor: Int32
    /// The directory it is, for its rules and its messages.
    package let directory: StoreDirectory

    /// The bytes of file `name`, or `nil` when there is none.
    /// - Throws: `storageFailed` for a link, a file that is not regular (opened without waiting: a FIFO answers at
    ///   once), of another user, open to others, or larger than ``StoreDirectory/maximumFileSize``.
    package func read(_ name: String) throws -> [UInt8]? {
        let file = directory.path(of: name)
        let flags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC
        let opened: Int32
        do throws(SystemCallError) {
            opened = try systemCall { openat(descriptor, name, flags) }
        } catch {
            switch error.code {
            case ENOENT: return nil
            case ELOOP:
                throw directory.failure(
                    file, "it is a symbolic link", fix: "Replace the link by the file itself, or remove it.")
            case ENXIO:  // a socket
                throw notRegular(file)
            default: throw directory.failure(file, "it cannot be opened (\(error.sentence))")
            }
        }
        defer { close(opened) }
        let info = try directory.examine(opened, at: file)
        guard info.st_mode & S_IFMT == S_IFREG else { throw notRegular(file) }
        try directory.checkOwnerAndMode(
            of: info, at: file, allowed: directory.allowedFileMode,
            fix: directory.contents == .secrets
                ? "Run `chmod 600 \(file)`; anyone who could read it may have copied the tokens, so sign out and in "
                    + "again if that matters"
                : "Run `chmod 600 \(file)`")
        let tooLarge = directory.failure(
            file, "it is larger than \(StoreDirectory.maximumFileSize) bytes", fix: "Move it away.")
        guard info.st_size <= StoreDirectory.maximumFileSize else { throw tooLarge }
        do {
            guard let bytes = try readToEnd(opened, limit: StoreDirectory.maximumFileSize) else { throw tooLarge }
            return bytes
        } catch let error as SystemCallError {
            throw directory.failure(file, "it cannot be read (\(error.sentence))")
        }
    }

    /// The names of the files in the directory.
    package func names() throws -> [String] {
        // A description of its own: reading entries moves the offset, which a duplicate would share.
        let listed: Int32
        do throws(SystemCallError) {
            listed = try systemCall { openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        } catch {
            throw directory.failure(directory.path, "it cannot be listed (\(error.sentence))")
        }
        guard let stream = fdopendir(listed) else {
            let problem = "it cannot be listed (\(SystemCallError(code: errno).sentence))"
            close(listed)
            throw directory.failure(directory.path, problem)
        }
        defer { closedir(stream) }  // closes `listed`
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                guard errno == 0 else {
                    throw directory.failure(directory.path, "it cannot be listed (\(SystemCallError(code: errno).sentence))")
                }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// Keeps file `name` as `NAME.corrupt-STAMP` (`-2`, `-3`, … when taken) by a second link, so that the next write
    /// replaces the item without destroying what it held; the item's own name stays in place until then.
    /// - Returns: The path it is kept at.
    package func keepAside(_ name: String, stamp: String) throws -> String {
        for attempt in 1...100 {
            let aside = "\(name).corrupt-\(stamp)" + (attempt > 1 ? "-\(attempt)" : "")
            do {
                try systemCall { linkat(descriptor, name, descriptor, aside, 0) }
                try sync()
                return directory.path(of: aside)
            } catch let error as SystemCallError where error.code == EEXIST {
                continue
            } catch let error as SystemCallError {
                throw directory.failure(
                    directory.path(of: aside), "the unreadable file \(name) could not be kept there (\(error.sentence)), "
                        + "so it was not replaced", fix: "Move \(directory.path(of: name)) away by hand, then try again.")
            }
        }
        throw directory.failure(
            directory.path(of: name), "too many files are kept aside already", fix: "Remove old \(name).corrupt-* files.")
    }

    /// Removes file `name`.
    /// - Returns: Whether there was one.
    package func remove(_ name: String) throws -> Bool {
        do throws(SystemCallError) {
            try systemCall { unlinkat(descriptor, name, 0) }
        } catch {
            if error.code == ENOENT { return false }
            throw directory.failure(directory.path(of: name), "it cannot be removed (\(error.sentence))")
        }
        try sync()
        return true
    }

    /// Makes the directory's entries durable (a rename, link or unlink in it).
    func sync() throws {
        do throws(SystemCallError) {
            try systemCall { fsync(descriptor) }
        } catch {
            throw directory.failure(directory.path, "it cannot be synced (\(error.sentence))")
        }
    }

    private func notRegular(_ file: String) -> TokenAuthError {
        directory.failure(
            file, "it is not a regular file", fix: "Move it away; the next "
                + (directory.contents == .secrets ? "sign-in" : "write") + " writes the file anew.")
    }
}
