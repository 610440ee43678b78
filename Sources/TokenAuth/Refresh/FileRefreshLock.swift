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
/// The file lives in `$XDG_RUNTIME_DIR/tokenkeyring/` (per user, in memory, cleared at logout) — in a Flatpak
/// sandbox in `$XDG_RUNTIME_DIR/app/$FLATPAK_ID/tokenkeyring/`, which all instances of the app share — or in the
/// user's cache directory when `XDG_RUNTIME_DIR` is unset. It holds no secret — its name is a hash of the service and
/// account. The kernel releases the lock when its holder exits, crashed or not. Each release touches the file (its
/// times), which ``releases()`` follows with inotify, so that every process sharing the lock learns of the others'
/// writes at once, whatever the store announces.
public struct FileRefreshLock: RefreshLock {
    /// The lock file.
    public let path: String
    /// The longest to wait for another process's refresh.
    public let maximumWait: Duration
    private let clock: any Clock<Duration>
    private let logger: Logger

    /// A lock for the credentials of `account` on `service`.
    /// - Parameters:
    ///   - service: the service of the credentials, as in their store.
    ///   - account: the account of the credentials, as in their store.
    ///   - directory: where lock files go; by default `$XDG_RUNTIME_DIR/tokenkeyring`, else the cache directory.
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
        self.maximumWait = maximumWait
        self.clock = clock
        self.logger = logger
    }

    public func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let descriptor = try openLockFile()
        defer { close(descriptor) }  // closing the descriptor releases the lock
        var waited = Duration.zero
        let pause = Duration.milliseconds(20)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw TokenAuthError.lockUnavailable("flock failed on \(path): \(String(cString: strerror(errno)))")
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

    private func openLockFile() throws -> Int32 {
        createDirectory()
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw TokenAuthError.lockUnavailable("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    /// The lock file's directory, made (0700) when missing.
    func createDirectory() {
        let directory = URL(filePath: path).deletingLastPathComponent().path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    static func defaultDirectory() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            // In a Flatpak sandbox XDG_RUNTIME_DIR is private to each instance of the app, except
            // app/APP_ID in it, which all of the app's instances share: the lock must be seen by all of them.
            if let app = environment["FLATPAK_ID"], !app.isEmpty, !app.contains("/"), app != "." && app != ".." {
                return URL(fileURLWithPath: runtime).appendingPathComponent("app/\(app)/tokenkeyring")
            }
            return URL(fileURLWithPath: runtime).appendingPathComponent("tokenkeyring")
        }
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("tokenkeyring/locks")
    }

    /// FNV-1a (64-bit) of service and account: stable across processes and runs, unlike `Hasher`.
    static func digest(_ service: String, _ account: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(service.utf8) + [0] + Array(account.utf8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
