#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small file of this user's that no other user can open, in a directory of the user's own: what
/// ``FileRefreshJournal`` keeps a refresh's answer in. Every system call goes through ``systemCall(_:)``.
package enum PrivateFile {
    /// Why a private file could not be used: the problem in words, with the system's own when it said any, e.g. "it
    /// cannot be written (No space left on device)".
    package struct Problem: Error, Sendable {
        package let sentence: String

        init(_ problem: String, _ error: SystemCallError? = nil) {
            sentence = problem + (error.map { " (\($0.sentence))" } ?? "")
        }
    }

    /// Replaces the file at `path` by `bytes` atomically: a temporary file beside it with a name no one can guess
    /// (`mkstemp`: `O_EXCL`, `0600`), written, synced and renamed over it — removed again when anything fails. A
    /// reader, or a process killed at any moment, sees the old file or the new one.
    package static func replace(_ path: String, with bytes: [UInt8]) throws(Problem) {
        let directory = path[..<(path.lastIndex(of: "/") ?? path.startIndex)]
        let name = path[(path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)...]
        var template = Array("\(directory)/.\(name)-XXXXXX".utf8CString)
        let descriptor: Int32
        do throws(SystemCallError) {
            descriptor = try systemCall { mkstemp(&template) }
        } catch {
            throw Problem("no temporary file can be made beside it", error)
        }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        do throws(SystemCallError) {
            defer { close(descriptor) }
            try writeAll(bytes, to: descriptor)
            try systemCall { fsync(descriptor) }
            try systemCall { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw Problem("it cannot be written", error)
        }
    }

    /// The bytes of the file at `path`, or `nil` when there is none. Opened without following a link and without
    /// waiting (a FIFO answers at once), and read only when it is a regular file of this user's that no one else can
    /// open, of at most `limit` bytes.
    package static func read(_ path: String, limit: Int) throws(Problem) -> [UInt8]? {
        let descriptor: Int32
        do throws(SystemCallError) {
            descriptor = try systemCall { open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        } catch where error.code == ENOENT {
            return nil
        } catch {
            throw Problem("it cannot be opened", error)
        }
        defer { close(descriptor) }
        var info = stat()
        guard (try? systemCall({ fstat(descriptor, &info) })) != nil, info.st_mode & S_IFMT == S_IFREG,
            info.st_uid == getuid(), info.st_mode & 0o077 == 0, info.st_size <= limit
        else {
            throw Problem("it is not a private file of this user's, of at most \(limit) bytes")
        }
        let bytes: [UInt8]?
        do throws(SystemCallError) {
            bytes = try readToEnd(descriptor, limit: limit)
        } catch {
            throw Problem("it cannot be read", error)
        }
        guard let bytes else { throw Problem("it is larger than \(limit) bytes") }
        return bytes
    }

    /// Removes the file at `path`; none there is fine.
    package static func remove(_ path: String) throws(Problem) {
        do throws(SystemCallError) {
            try systemCall { unlink(path) }
        } catch where error.code == ENOENT {
            return
        } catch {
            throw Problem("it cannot be removed", error)
        }
    }
}
