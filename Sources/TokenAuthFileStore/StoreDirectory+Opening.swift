#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TokenAuth

/// `O_PATH`: a descriptor that only names a directory, to walk through it (`openat`, `fstat`) with no permission to
/// read it. Glibc's module hides the constant behind `_GNU_SOURCE`; the kernel's value is the same on every
/// architecture Swift builds for on Linux (`010000000`; only Alpha, PA-RISC and SPARC differ).
let openPathOnly: Int32 = 0o10000000

extension StoreDirectory {
    /// The most symbolic links followed on the way, as the kernel's own limit (`ELOOP` after 40).
    static let maximumLinks = 40

    /// Opens the directory, walking to it from `/` and checking each directory on the way (the type's overview).
    /// - Parameter creating: Whether to make missing directories (`0700`).
    /// - Returns: The directory's descriptor (`O_RDONLY`, close-on-exec), checked; `nil` when it is missing and
    ///   `creating` is `false`.
    func open(creating: Bool) throws -> Int32? {
        guard path.hasPrefix("/") else {
            throw failure(path, "it is not an absolute path", fix: "Give the store an absolute directory.")
        }
        // The components still to walk, the next one last.
        var pending = Self.components(of: path).reversed() as [String]
        var way = Way(descriptor: try openRoot(), path: "")
        defer { if way.descriptor >= 0 { close(way.descriptor) } }
        var links = 0, made = 0
        while let component = pending.popLast() {
            let isStore = pending.isEmpty
            let flags = (isStore ? O_RDONLY : openPathOnly) | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
            let next = way.path(adding: component)
            let descriptor: Int32
            do throws(SystemCallError) {
                descriptor = try systemCall { openat(way.descriptor, component, flags) }
            } catch {
                switch error.code {
                case ENOENT:
                    guard creating else { return nil }
                    made += 1  // bounded: another process could remove each directory as soon as it is made
                    guard made <= 100 else { throw failure(next, "it keeps disappearing once made") }
                    try make(component, in: way, at: next)
                    pending.append(component)
                case ELOOP, ENOTDIR:
                    guard let target = try linkTarget(component, in: way, at: next, isStore: isStore) else {
                        throw failure(next, "it is not a directory", fix: "Move it away, or choose another directory.")
                    }
                    links += 1
                    guard links <= Self.maximumLinks else {
                        throw failure(next, "more than \(Self.maximumLinks) symbolic links lead to it")
                    }
                    if target.hasPrefix("/") {
                        close(way.descriptor)
                        way = Way(descriptor: -1, path: "")
                        way.descriptor = try openRoot()
                    }
                    pending += Self.components(of: target).reversed()
                default:
                    throw failure(next, "it cannot be opened (\(error.sentence))")
                }
                continue
            }
            do {
                let info = try examine(descriptor, at: next)
                if isStore {
                    try checkOwnerAndMode(
                        of: info, at: next, allowed: allowedDirectoryMode,
                        fix: "Run `chmod \(String(allowedDirectoryMode, radix: 8)) \(next)`")
                } else {
                    try checkWay(info, at: next)
                }
            } catch {
                close(descriptor)
                throw error
            }
            close(way.descriptor)
            way = Way(descriptor: descriptor, path: next == "/" ? "" : next)
            if isStore {
                way.descriptor = -1  // the caller's now: the `defer` above must not close it
                return descriptor
            }
        }
        // The path is `/` itself: the walk never reached a directory that could be the store's.
        throw failure(path, "it is not a directory the store can use", fix: "Give the store a directory of its own.")
    }

    /// A directory reached on the way: its descriptor and the path it was reached by.
    private struct Way {
        var descriptor: Int32
        let path: String

        /// The path of `component` in it, for messages (`/` for the root).
        func path(adding component: String) -> String {
            let added = component == ".." ? parentPath : path + "/" + component
            return added.isEmpty ? "/" : added
        }

        var parentPath: String {
            guard let slash = path.lastIndex(of: "/") else { return "" }
            return String(path[..<slash])
        }
    }

    /// `/`, opened and checked.
    private func openRoot() throws -> Int32 {
        let descriptor: Int32
        do throws(SystemCallError) {
            descriptor = try systemCall { openat(AT_FDCWD, "/", openPathOnly | O_DIRECTORY | O_CLOEXEC) }
        } catch {
            throw failure("/", "it cannot be opened (\(error.sentence))")
        }
        do {
            try checkWay(try examine(descriptor, at: "/"), at: "/")
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// `fstat` of `descriptor`, opened at `path`.
    func examine(_ descriptor: Int32, at path: String) throws -> stat {
        var info = stat()
        do throws(SystemCallError) {
            try systemCall { fstat(descriptor, &info) }
        } catch {
            throw failure(path, "it cannot be examined (\(error.sentence))")
        }
        return info
    }

    /// Makes the missing directory `component` (`0700`); one made meanwhile by another process is fine.
    private func make(_ component: String, in way: Way, at path: String) throws {
        do throws(SystemCallError) {
            try systemCall { mkdirat(way.descriptor, component, 0o700) }
        } catch where error.code == EEXIST {
            return
        } catch {
            throw failure(path, "it cannot be created (\(error.sentence))")
        }
    }

    /// Where the symbolic link `component` leads, or `nil` when it is no link (and so not a directory).
    /// - Throws: when it is the store's directory itself, or a link that belongs to another user.
    private func linkTarget(_ component: String, in way: Way, at path: String, isStore: Bool) throws -> String? {
        var info = stat()
        guard fstatat(way.descriptor, component, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw failure(path, "it cannot be examined (\(SystemCallError(code: errno).sentence))")
        }
        guard info.st_mode & S_IFMT == S_IFLNK else { return nil }
        guard !isStore else {
            throw failure(
                path, "it is a symbolic link", fix: "Replace the link by the directory itself, or use the directory "
                    + "it points to.")
        }
        guard info.st_uid == 0 || info.st_uid == geteuid() else {
            throw failure(
                path, "it is a symbolic link of another user (uid \(info.st_uid)) on the way to \(self.path), so it "
                    + "was not followed", fix: "Keep the store in a directory whose way holds only your links.")
        }
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count: Int
        do throws(SystemCallError) {
            count = try systemCall { buffer.withUnsafeMutableBytes { readlinkat(way.descriptor, component, $0.baseAddress!, $0.count) } }
        } catch {
            throw failure(path, "the symbolic link cannot be read (\(error.sentence))")
        }
        guard count < buffer.count else { throw failure(path, "the symbolic link's target is too long") }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// The components of `path` that name something: no empty ones (`//`), no `.`.
    private static func components(of path: String) -> [String] {
        path.split(separator: "/").map(String.init).filter { $0 != "." }
    }
}
