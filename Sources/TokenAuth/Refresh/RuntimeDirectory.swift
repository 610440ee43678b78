#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The user's directory in memory where this package keeps what belongs to a session and must never reach a disk:
/// the keyring items' refresh locks (``FileRefreshLock``) and refresh answers not stored yet (``RefreshJournal``).
///
/// It is derived from the user — `getuid()` — never from the environment alone, so that every process of the user
/// finds the same one: a desktop app, a cron job or CI step without `XDG_RUNTIME_DIR`, `sudo -u`, `env -i`. Their locks
/// exclude each other, and what one process kept, the next one finds.
///
/// - In a Flatpak sandbox (`/.flatpak-info` and `FLATPAK_ID`): `$XDG_RUNTIME_DIR/app/$FLATPAK_ID/tokenkeyring`, the part
///   of the runtime directory that all instances of the app share (the rest is private to each instance). The sandbox
///   sets that environment; nothing else in it can.
/// - Else `/run/user/UID/tokenkeyring` when systemd-logind made `/run/user/UID` for the user (a tmpfs, 0700, removed at
///   the user's last logout).
/// - Else (no logind: containers, CI, some servers) `/dev/shm/tokenkeyring-UID`, on the shared-memory tmpfs, made 0700
///   and checked to be the user's own.
/// - Elsewhere than Linux: `tokenkeyring-UID` in the temporary directory.
package enum RuntimeDirectory {
    /// The directory's path (not made yet: see ``prepare()``).
    package static var path: String {
        let uid = getuid()
        #if os(Linux)
        if let app = environment("FLATPAK_ID"), isAppID(app), access("/.flatpak-info", F_OK) == 0 {
            let runtime = environment("XDG_RUNTIME_DIR").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/run/user/\(uid)"
            return runtime + "/app/\(app)/tokenkeyring"
        }
        if isOwnDirectory("/run/user/\(uid)", uid: uid) {
            return "/run/user/\(uid)/tokenkeyring"
        }
        return "/dev/shm/tokenkeyring-\(uid)"
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
            // A Flatpak app's shared directory may not exist yet; its parents are the sandbox's own.
            try? FileManager.default.createDirectory(
                atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            // Nothing is there to remove: what is wrong is the directory it belongs in.
            throw TokenAuthError.lockUnavailable(
                "the directory \(path) for the refresh locks cannot be made (\(String(cString: strerror(errno))))",
                fix: "Make \(parent.isEmpty ? "/" : parent) a directory this user can write to: the user's runtime "
                    + "directory that systemd-logind makes at login (/run/user/UID), or else the shared-memory tmpfs "
                    + "/dev/shm (a container needs one, writable).")
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

    private static func unusable(_ path: String, _ problem: String) -> TokenAuthError {
        .lockUnavailable(
            "the directory \(path) for the refresh locks cannot be used: \(problem)",
            fix: "Remove it (it holds nothing that is not kept elsewhere once no tokenkeyring process runs), and try again.")
    }

    /// Whether `path` is a directory that belongs to `uid`.
    private static func isOwnDirectory(_ path: String, uid: uid_t) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR && info.st_uid == uid
    }

    /// A Flatpak application ID can name one path component: no `/`, not `.` or `..`.
    private static func isAppID(_ app: String) -> Bool {
        !app.isEmpty && !app.contains("/") && app != "." && app != ".."
    }

    /// The variable, unless unset or empty. `getenv`, not `ProcessInfo`'s environment, which copies every variable.
    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}
