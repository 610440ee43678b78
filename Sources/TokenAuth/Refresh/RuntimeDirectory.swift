#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The user's directory where this package keeps what belongs to a session: the keyring items' refresh locks
/// (``FileRefreshLock``) and refresh answers not stored yet (``RefreshJournal``).
///
/// Every process of the user must find the same one — a desktop app, a cron job or CI step without
/// `XDG_RUNTIME_DIR`, `sudo -u`, `env -i` — so that their locks exclude each other and what one process kept the
/// next one finds; and no other user may make it first, or it would hold (or block) the user's locks. So it is never
/// a name another user can predict in a directory everyone can write:
///
/// - In a Flatpak sandbox (`/.flatpak-info` and `FLATPAK_ID`): `$XDG_RUNTIME_DIR/app/$FLATPAK_ID/tokenkeyring`, the part
///   of the runtime directory that all instances of the app share (the rest is private to each instance). The sandbox
///   sets that environment; nothing else in it can.
/// - Else `/run/user/UID/tokenkeyring` when systemd-logind made `/run/user/UID` for the user (a tmpfs of the user's,
///   0700, removed at the user's last logout).
/// - Else (no logind: ssh without pam_systemd, `su`, cron, containers, CI runners) the directory that
///   `~/.local/state/tokenkeyring/runtime-directory` names — the home directory of the password database, not `$HOME`,
///   so that every process of the user reads the same record. The first process that finds no usable directory
///   recorded chooses one, under a lock on the record's folder, and records it: `$XDG_RUNTIME_DIR/tokenkeyring` when
///   `XDG_RUNTIME_DIR` is a directory of the user's that no one else can open; else a directory with an unpredictable
///   name in the shared-memory tmpfs (`/dev/shm/tokenkeyring-UID-XXXXXX`, `mkdtemp`), so that answers kept there never
///   reach a disk; else, with no usable `/dev/shm`, `~/.local/state/tokenkeyring/runtime` itself. Every later process
///   follows the record, whatever its environment, until what it names is gone (a reboot empties `/dev/shm`).
/// - Elsewhere than Linux: `tokenkeyring-UID` in the temporary directory.
package enum RuntimeDirectory {
    /// The directory's path (it may not exist yet: see ``prepare(_:)``), resolved once per process.
    package static var path: String {
        resolved.withLock { cached in
            if let cached { return cached }
            let path = resolve()
            cached = path
            return path
        }
    }

    private static let resolved = Mutex<String?>(nil)

    /// The directory as this process finds it now.
    static func resolve() -> String {
        let uid = getuid()
        #if os(Linux)
        if let app = environment("FLATPAK_ID"), isAppID(app), access("/.flatpak-info", F_OK) == 0 {
            let runtime = environment("XDG_RUNTIME_DIR").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/run/user/\(uid)"
            return runtime + "/app/\(app)/tokenkeyring"
        }
        if isPrivateDirectory("/run/user/\(uid)", uid: uid) {
            return "/run/user/\(uid)/tokenkeyring"
        }
        return Rendezvous(
            home: homeDirectory(uid) ?? "/nonexistent", uid: uid, xdgRuntimeDirectory: environment("XDG_RUNTIME_DIR")
        ).directory()
        #else
        return FileManager.default.temporaryDirectory.appendingPathComponent("tokenkeyring-\(uid)").path
        #endif
    }

    /// Makes the directory at `path` (0700) when it is missing, and checks that it is a directory of this user that no
    /// one else can open: anything else — a symbolic link, another user's directory, one open to others — is refused,
    /// never repaired, since what it holds guards (and may hold) a session.
    /// - Throws: ``TokenAuthError`` with code ``TokenAuthError/Code/lockUnavailable``, naming the path and the fix.
    package static func prepare(_ path: String = path) throws(TokenAuthError) {
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !parent.isEmpty, access(parent, F_OK) != 0 {
            // A Flatpak app's shared directory may not exist yet; its parents are the sandbox's own. The home
            // directory's state folder may not either.
            try? FileManager.default.createDirectory(
                atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            // Nothing is there to remove: what is wrong is the directory it belongs in.
            throw TokenAuthError.lockUnavailable(
                "the directory \(path) for the refresh locks cannot be made (\(String(cString: strerror(errno))))",
                fix: "Make \(parent.isEmpty ? "/" : parent) a directory this user can write to: the user's runtime "
                    + "directory that systemd-logind makes at login (/run/user/UID), or else a home directory of the "
                    + "user's own (a container needs one, writable).")
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw unusable(path, "it cannot be examined (\(String(cString: strerror(errno))))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw unusable(path, "it is not a directory") }
        guard info.st_uid == getuid() else { throw unusable(path, "it belongs to another user (uid \(info.st_uid))") }
        guard info.st_mode & 0o077 == 0 else {
            throw unusable(path, "its mode \(String(info.st_mode & 0o7777, radix: 8)) lets other users in")
        }
    }

    /// Every path this package resolves to lies in a directory the user owns (the user's runtime directory, the
    /// sandbox's, the home directory's state folder, or an unpredictable name in `/dev/shm` recorded there), so the
    /// user can always apply this fix.
    private static func unusable(_ path: String, _ problem: String) -> TokenAuthError {
        .lockUnavailable(
            "the directory \(path) for the refresh locks cannot be used: \(problem)",
            fix: "Remove it (it holds nothing that is not kept elsewhere once no tokenkeyring process runs), and try again.")
    }

    /// Whether `path` itself (not a link to it) is a directory of `uid`'s that no other user can open.
    package static func isPrivateDirectory(_ path: String, uid: uid_t) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR && info.st_uid == uid
            && info.st_mode & 0o077 == 0
    }

    /// The user's home directory in the password database: the same for every process of the user, whatever `HOME`.
    static func homeDirectory(_ uid: uid_t) -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &found) == 0, found != nil, let directory = entry.pw_dir
        else { return nil }
        let home = String(cString: directory)
        return home.hasPrefix("/") ? home : nil
    }

    /// A Flatpak application ID can name one path component: no `/`, not `.` or `..`.
    private static func isAppID(_ app: String) -> Bool {
        !app.isEmpty && !app.contains("/") && app != "." && app != ".."
    }

    /// The variable, unless unset or empty. `getenv`, not `ProcessInfo`'s environment, which copies every variable.
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}
