#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TokenAuth

/// The directory of ``FileAuthStore`` (and of `tokenctl`'s default accounts) and the system calls on its files: with
/// ``OpenStoreDirectory``, the one place where the store touches the file system. Every failure is a `TokenAuthError`
/// with code `storageFailed` naming the path, never a secret.
///
/// **By descriptor.** Each operation opens the directory once (``withDirectory(creating:_:)``) and reaches its files
/// by name through that descriptor (`openat`, `renameat`, `linkat`, `unlinkat`), never through a path resolved again:
/// a directory renamed, or replaced by a link, while an operation runs cannot send its reads and writes elsewhere.
///
/// **The way to the directory** is walked from `/`, one directory at a time, each opened without following a link
/// (`O_NOFOLLOW`) and checked with `fstat`, as OpenSSH's `StrictModes` checks the way to `authorized_keys`:
/// - Every directory on the way must belong to root or to this user, and must not be writable by its group or by
///   others unless it is sticky (as `/tmp` is). Anyone else who can write to one could move the store's directory
///   away and put their own in its place; such a way is refused (`chmod go-w`, or another directory), not used.
/// - A symbolic link on the way is followed only when it belongs to root or to this user (it lives in a directory
///   just checked); the directories it leads to are checked in turn. The store's directory itself must not be a link.
/// - Missing directories are made `0700` by writes (reads make nothing).
///
/// **The directory and its files.** The directory must belong to this user and be open to no one else (`0700`); a
/// file is read only when it is a regular file (not a link, a FIFO or a device: opened `O_NONBLOCK`, so that nothing
/// waits for a writer) of this user, open to no one else (`0600`), and no larger than ``maximumFileSize``. What is
/// refused is never repaired silently: the tokens in it may already have been read. A directory of ``Contents/choices``
/// — no secret in it — may also be readable by others (`0755`, `0644`), never writable.
///
/// **Writes** go to a temporary file in the same directory with a name no one can guess, created `0600` with
/// `O_EXCL`, locked (`flock`) while it is written, `fsync`ed, renamed over the item and the directory `fsync`ed: a
/// reader, or a process killed at any moment, sees the old file or the new one, never a part. The next write of an
/// item removes the item's temporary files that no process holds locked — those of writers that were killed — and
/// never one that a live writer holds, whatever process (or PID namespace) it runs in.
package struct StoreDirectory: Sendable {
    /// What the directory's files hold, which decides who else may read them.
    package enum Contents: Sendable {
        /// Tokens: the directory `0700` and its files `0600`, read by no one else.
        case secrets
        /// Choices that are no secret (`tokenctl`'s default accounts): made `0700` and `0600` all the same, but a
        /// directory or file that others can only read (`0755`, `0644`, as earlier versions wrote them) is read.
        case choices
    }

    /// The directory.
    package let path: String
    /// What its files hold.
    package let contents: Contents
    /// How its errors name what could not be used, e.g. "The token file store".
    let owner: String

    /// The largest file read: a token bundle is a few KiB.
    static let maximumFileSize = 1024 * 1024

    /// A directory of `contents` at `path`, named `owner` in its errors ("The token file store could not use …").
    package init(path: String, contents: Contents = .secrets, owner: String = "The token file store") {
        self.path = path
        self.contents = contents
        self.owner = owner
    }

    /// The path of the file `name` in the directory, for messages.
    package func path(of name: String) -> String { path + "/" + name }

    /// Opens the directory (see the type's overview), runs `body` with it and closes it.
    /// - Parameters:
    ///   - creating: Whether to make the directory and its missing parents (`0700`) when it is missing.
    ///   - body: What to do in it.
    /// - Returns: What `body` returned, or `nil` when the directory is missing and `creating` is `false`.
    package func withDirectory<Result>(
        creating: Bool, _ body: (OpenStoreDirectory) throws -> Result
    ) throws -> Result? {
        guard let descriptor = try open(creating: creating) else { return nil }
        defer { close(descriptor) }
        return try body(OpenStoreDirectory(descriptor: descriptor, directory: self))
    }

    // MARK: Checks

    /// The permission bits the directory may have.
    var allowedDirectoryMode: mode_t { contents == .secrets ? 0o700 : 0o755 }

    /// The permission bits its files may have.
    var allowedFileMode: mode_t { contents == .secrets ? 0o600 : 0o644 }

    /// Refuses `info` unless it belongs to this user and has no permission bit outside `allowed`.
    func checkOwnerAndMode(of info: stat, at path: String, allowed: mode_t, fix: String) throws {
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

    /// Refuses `info`, a directory on the way to this one, unless only root or this user can change what it holds
    /// (see the type's overview).
    func checkWay(_ info: stat, at path: String) throws {
        guard info.st_uid == 0 || info.st_uid == geteuid() else {
            throw failure(
                path, "it is on the way to \(self.path) and belongs to another user (uid \(info.st_uid)), who could "
                    + "replace what it holds, so it was not used",
                fix: "Keep the store in a directory whose every parent belongs to you or to root.")
        }
        let mode = info.st_mode & 0o7777
        guard mode & 0o022 == 0 || mode & S_ISVTX != 0 else {
            throw failure(
                path, "it is on the way to \(self.path) and its mode \(String(mode, radix: 8)) lets other users "
                    + "replace what it holds, so it was not used",
                fix: "Run `chmod go-w \(path)` (or `chmod +t` for a directory all users share, as /tmp is), or keep "
                    + "the store in a directory whose every parent only you or root can write to.")
        }
    }

    /// A `storageFailed` error: `problem` with the file at `path`, and what to do about it.
    func failure(_ path: String, _ problem: String, fix: String? = nil) -> TokenAuthError {
        TokenAuthError(
            .storageFailed, "\(owner) could not use \(path): \(problem).",
            fix: fix ?? "Check that \(self.path) is a directory of yours with room left on its disk.")
    }
}
