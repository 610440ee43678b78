#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``RefreshLock`` on an advisory `flock` of a file named after the service and account.
///
/// By default the file lives in the user's runtime directory, derived from the user and not from the environment —
/// `/run/user/UID/tokenkeyring/`, in a Flatpak sandbox the app's shared `$XDG_RUNTIME_DIR/app/$FLATPAK_ID/tokenkeyring/`,
/// without logind the directory recorded in `~/.local/state/tokenkeyring/runtime-directory` (see `RuntimeDirectory`:
/// a name no other user can predict or make first) — so that every
/// process of the user takes the same lock for the same item, whatever its environment (a cron job without
/// `XDG_RUNTIME_DIR` and a desktop app exclude each other). A store that keeps its entries elsewhere gives its own
/// directory (the file store its own). The file holds no secret — its name is a hash of the service and account. The
/// kernel releases the lock when its holder exits, crashed or not. Each release touches the file (its times), which
/// ``releases()`` follows with inotify, so that every process sharing the lock learns of the others' writes at once,
/// whatever the store announces.
public struct FileRefreshLock: RefreshLock {
    /// The lock file.
    public let path: String
    /// The longest to wait for another process's refresh.
    public let maximumWait: Duration
    private let clock: any Clock<Duration>
    private let logger: Logger
    /// Whether the directory is the runtime directory, which must be the user's own and closed to others.
    private let inRuntimeDirectory: Bool

    /// A lock for the credentials of `account` on `service`.
    /// - Parameters:
    ///   - service: the service of the credentials, as in their store.
    ///   - account: the account of the credentials, as in their store.
    ///   - directory: where lock files go; by default the user's runtime directory (see the type's overview). It is
    ///     made 0700 when missing.
    ///   - maximumWait: how long to wait for another holder before failing.
    ///   - clock: the clock for the waits between attempts.
    ///   - logger: where a wait for another holder is logged (at debug level, once per wait); never a secret.
    public init(
        service: String,
        account: String,
        directory: URL? = nil,
        maximumWait: Duration = .seconds(30),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "TokenAuth.FileRefreshLock")
    ) {
        let folder = directory ?? Self.defaultDirectory()
        path = folder.appendingPathComponent("refresh-\(Self.digest(service, account)).lock").path
        inRuntimeDirectory = directory == nil
        self.maximumWait = maximumWait
        self.clock = clock
        self.logger = logger
    }

    public func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let descriptor = try openLockFile()
        defer { close(descriptor) }  // closing the descriptor releases the lock
        var waited = Duration.zero
        let pause = Duration.milliseconds(20)
        while true {
            do throws(SystemCallError) {
                try systemCall { flock(descriptor, LOCK_EX | LOCK_NB) }
                break
            } catch where error.wouldBlock {
                // Another holder has it: wait, below.
            } catch {
                throw TokenAuthError.lockUnavailable("flock failed on \(path): \(error.sentence)")
            }
            guard waited < maximumWait else {
                throw TokenAuthError.lockTimedOut(path, wait: maximumWait)
            }
            if waited == .zero {
                logger.debug("waiting for the refresh lock, which another holder has", metadata: ["lock": "\(path)"])
            }
            try await clock.sleep(for: pause)
            waited += pause
        }
        // Touched on release, whatever `body` did: processes following ``releases()`` read their store again.
        defer { futimens(descriptor, nil) }
        return try await body()
    }

    /// Opens the lock file, making it when missing. A lock file that exists on a file system that became read-only is
    /// opened for reading (a `flock` needs no more): the lock still orders the processes, and the store's own write
    /// then reports what is wrong with the disk.
    private func openLockFile() throws -> Int32 {
        try createDirectory()
        do throws(SystemCallError) {
            do {
                return try systemCall { open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600) }
            } catch where error.code == EROFS || error.code == EACCES {
                return try systemCall { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
            }
        } catch {
            throw TokenAuthError.lockUnavailable("cannot open \(path): \(error.sentence)")
        }
    }

    /// The lock file's directory, made (0700) when missing; the runtime directory is also checked to be this user's
    /// own and closed to others.
    func createDirectory() throws(TokenAuthError) {
        let directory = URL(filePath: path).deletingLastPathComponent().path
        if inRuntimeDirectory {
            try RuntimeDirectory.prepare(directory)
        } else {
            try? FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }

    static func defaultDirectory() -> URL {
        URL(filePath: RuntimeDirectory.path, directoryHint: .isDirectory)
    }

    /// FNV-1a (64-bit) of service and account: stable across processes and runs, unlike `Hasher`.
    package static func digest(_ service: String, _ account: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(service.utf8) + [0] + Array(account.utf8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
