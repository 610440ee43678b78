#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TokenAuth

extension OpenStoreDirectory {
    /// Replaces file `name` by `bytes` atomically, through a locked temporary file (``StoreDirectory``'s overview).
    package func write(_ bytes: [UInt8], to name: String) throws {
        removeAbandonedTemporaries(of: name)
        let (temporary, file) = try lockedTemporary(for: name)
        // Closed, which releases its lock, only once it is renamed or removed: a cleaner never takes it meanwhile.
        defer { close(file) }
        do throws(SystemCallError) {
            try writeAll(bytes, to: file)
            try systemCall { fsync(file) }
        } catch {
            unlinkat(descriptor, temporary, 0)
            throw directory.failure(directory.path(of: temporary), "it cannot be written (\(error.sentence))")
        }
        do throws(SystemCallError) {
            try systemCall { renameat(descriptor, temporary, descriptor, name) }
        } catch {
            unlinkat(descriptor, temporary, 0)
            throw directory.failure(
                directory.path(of: name), "the new file could not be moved into place (\(error.sentence))")
        }
        try sync()
    }

    /// The prefix of the temporary files of `name`: hidden, so never an item's name (``FileStoreNames``).
    static func temporaryPrefix(of name: String) -> String { "." + name + ".tmp-" }

    /// A new temporary file for `name`: a name no one can guess, made here (`O_EXCL`, never through a link), `0600`,
    /// and locked before anything is written to it.
    /// - Returns: Its name and its descriptor, which holds the lock.
    private func lockedTemporary(for name: String) throws -> (name: String, descriptor: Int32) {
        for _ in 1...10 {
            let temporary = Self.temporaryPrefix(of: name) + String(UInt64.random(in: .min ... .max), radix: 16)
            let file: Int32
            do throws(SystemCallError) {
                file = try systemCall {
                    openat(descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0o600)
                }
            } catch where error.code == EEXIST {
                continue
            } catch {
                throw directory.failure(directory.path, "no temporary file can be made in it (\(error.sentence))")
            }
            // Between the file's creation and its lock, another writer's clean-up may find it unlocked, lock it and
            // remove it: then this lock fails (that writer holds it) or the file has no name left. Either way, a
            // new one.
            do {
                try systemCall { flock(file, LOCK_EX | LOCK_NB) }
                guard try directory.examine(file, at: directory.path(of: temporary)).st_nlink > 0 else {
                    close(file)
                    continue
                }
                try systemCall { fchmod(file, 0o600) }  // whatever the umask took away
                return (temporary, file)
            } catch let error as SystemCallError where error.code == EWOULDBLOCK {
                close(file)
                continue
            } catch {
                unlinkat(descriptor, temporary, 0)
                close(file)
                throw (error as? SystemCallError).map {
                    directory.failure(directory.path(of: temporary), "it cannot be locked (\($0.sentence))")
                } ?? error
            }
        }
        throw directory.failure(directory.path, "no temporary file could be made and locked in it in 10 attempts")
    }

    /// Removes the temporary files of `name` that no process holds locked: those of writers that were killed
    /// mid-write. A file is removed only while this process holds its lock, and only if it is still the file of that
    /// name; anything that does not go to plan is left for the next write.
    private func removeAbandonedTemporaries(of name: String) {
        let prefix = Self.temporaryPrefix(of: name)
        for temporary in (try? names()) ?? [] where temporary.hasPrefix(prefix) {
            let flags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC
            guard let file = try? systemCall({ openat(descriptor, temporary, flags) }) else { continue }
            defer { close(file) }
            guard (try? systemCall({ flock(file, LOCK_EX | LOCK_NB) })) != nil else { continue }  // a live writer's
            var held = stat(), named = stat()
            guard fstat(file, &held) == 0, held.st_mode & S_IFMT == S_IFREG,
                fstatat(descriptor, temporary, &named, AT_SYMLINK_NOFOLLOW) == 0,
                held.st_dev == named.st_dev, held.st_ino == named.st_ino
            else { continue }
            unlinkat(descriptor, temporary, 0)
        }
    }
}
