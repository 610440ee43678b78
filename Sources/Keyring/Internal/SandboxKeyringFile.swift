import CLibSecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// What libsecret's file backend needs around its calls, in the sandbox.
///
/// - libsecret aborts the whole process (an assertion) on a keyring file whose body is damaged, so the file is read
///   first and refused unless it is libsecret's format (``check(_:)``).
/// - libsecret keeps the file in memory with the key the Secret portal gave. Version 0.21 reads it again when its
///   modification time *in whole seconds* changed, 0.20 never: a write by another process stays unseen until
///   libsecret's backend is dropped (`secret_service_disconnect`) and the next call builds a new one, which asks the
///   portal for the key again (one round trip, which libsecret < 0.21.4 can miss and wait for ever). So when the file
///   is not as it was before this process's last call, the backend is dropped before the call (``prepare(_:)``).
/// - libsecret guards its writes only with GIO's etag check, which is not atomic with its rename, so this package's
///   writes also take the file's own lock — and hold it only while they write, never across a portal round trip
///   (``write(_:timeout:call:load:_:)``).
enum SandboxKeyringFile {
    /// The file's identity and version: device, inode, size and modification time in nanoseconds. Every write renames
    /// a new file over the old one, so a write changes the inode.
    struct Stamp: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Int64
    }

    /// What this process knows of libsecret's copy of the file: the file's stamp taken before libsecret last read it
    /// (or after this process's own write), so that the copy is at least as new as the file was then (`.some(nil)`:
    /// the file did not exist); `nil` when nothing is known.
    private static let lastSeen = Mutex<Stamp??>(nil)

    /// Set when libsecret's copy may be older than ``lastSeen`` says (a call failed after libsecret changed its copy, or
    /// an abandoned call came back and may have cached a backend of its own): the next call drops the backend.
    private static let mustReopen = Atomic(false)

    /// How many calls of this process wait for the keyring file's lock now.
    static var lockWaiters: Int { waiting.load(ordering: .sequentiallyConsistent) }
    private static let waiting = Atomic<Int>(0)

    /// How often a write starts over because another process wrote between its key fetch and its lock.
    static let maximumRounds = 4

    static func stamp(_ path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Stamp(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// Before a call, in its turn: refuses a damaged file, and drops libsecret's backend when its copy may be older
    /// than the file — the file is not as it was before this process's last call, or the copy was marked
    /// (``invalidate()``). The next libsecret call then reads the file afresh, with the portal's key fetched anew.
    ///
    /// The stamp is taken *before* the call, not after it: libsecret may load the file during a call after another
    /// process wrote it in the same second, and a stamp taken after the call would then match the file while
    /// libsecret's copy is older (a refresh under the item's lock read the spent refresh token so).
    ///
    /// Only a call holding the process's turn calls this: it is the one place that drops libsecret's backend, so that
    /// no other call of the process meets a dropped backend — and a portal round trip — in the middle of its write.
    static func prepare(_ path: String, forceReopen: Bool = false) throws {
        try check(path)
        let now = stamp(path)
        let stale = mustReopen.exchange(false, ordering: .sequentiallyConsistent)
        let reopen = lastSeen.withLock { seen in
            defer { seen = .some(now) }
            return forceReopen || stale || seen != .some(now)
        }
        // Before the first call there is no backend: dropping none costs nothing.
        if reopen { secret_service_disconnect() }
    }

    /// Marks libsecret's copy of the file as not to be trusted: the next call in its turn drops the backend. Safe from
    /// any thread, unlike dropping it at once, which could do so under the feet of a call that is writing.
    static func invalidate() {
        mustReopen.store(true, ordering: .sequentiallyConsistent)
    }

    /// A store or a delete: `load` outside the lock, then `write` under it, with libsecret's copy of the file as the
    /// file is. Runs in `call`'s turn, after ``prepare(_:forceReopen:)``.
    ///
    /// 1. `load` makes libsecret read the file — the first call after a dropped backend fetches the Secret portal's
    ///    key, the round trip that can wait for ever with libsecret < 0.21.4 — *without* the lock: a call abandoned
    ///    there keeps no other process of the app from writing.
    /// 2. Then the keyring file's lock (`FILE.lock`, 0600, beside it, so every instance of the app shares it), an
    ///    exclusive `flock` waited for up to `timeout`.
    /// 3. Under it, the file is compared with its stamp from before the load: unchanged, libsecret's copy is the file
    ///    as it is, and `write` runs on it (a delete's check for other items included). Changed — another process
    ///    wrote meanwhile — the lock is given back, the backend dropped, and it starts over from 1, at most
    ///    ``maximumRounds`` times. libsecret cannot re-read the file under the lock without the portal: 0.20 reads
    ///    it only when it builds a backend, which asks the portal for the key; 0.21 reads it again only when its
    ///    modification time changed by a whole second (see docs/notes/flatpak-investigation.md).
    /// 4. `write` begins only if `call` was not abandoned (``SandboxCall/beginWriting()``), and once begun is not
    ///    abandoned at the timeout: nothing is written after the caller was told "timed out". It calls libsecret on the
    ///    backend that the load left cached (only a call in its turn drops it), so it never talks to the portal.
    static func write<T>(
        _ file: String, timeout: Duration, call: SandboxCall, load: () throws -> Void, _ write: () throws -> T
    ) throws -> T {
        let lock = try LockFile(path: file + ".lock")
        defer { lock.close() }
        for round in 1...maximumRounds {
            try call.checkNotAbandoned()
            if round > 1 { try prepare(file, forceReopen: true) }
            try load()
            try call.checkNotAbandoned()  // back from a portal that answered too late: no lock for it
            try lock.take(within: timeout, call: call)
            defer { lock.release() }
            let current = stamp(file)
            let unchanged = lastSeen.withLock { $0 == .some(current) }
            guard unchanged, !mustReopen.load(ordering: .sequentiallyConsistent) else { continue }
            try call.beginWriting()
            do {
                let result = try write()
                // libsecret's copy is what it just wrote, and no other writer of this package could come between.
                let written = stamp(file)
                lastSeen.withLock { $0 = .some(written) }
                return result
            } catch {
                // libsecret changes its copy before it writes the file, and keeps the change when the write fails.
                invalidate()
                throw error
            }
        }
        throw KeyringError(
            .other,
            "Other processes of this app wrote its keyring file each of the \(maximumRounds) times this call was "
                + "about to; nothing was written.",
            fix: "Retry; if it persists, another process of the app writes the file without pause.")
    }

    /// The keyring file's lock file, open; its `flock` taken and given back by ``take(within:call:)`` and ``release()``.
    /// Owned by the call's thread: it holds the lock only while it writes, so it never leaves it held when abandoned.
    private struct LockFile {
        let path: String
        let descriptor: Int32

        init(path: String) throws {
            self.path = path
            let directory = URL(filePath: path).deletingLastPathComponent().path
            try? FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw KeyringError(
                    .misconfigured,
                    "The app's keyring lock file \(path) cannot be opened (\(String(cString: strerror(errno)))).",
                    fix: "Check that the directory belongs to this user and is writable.")
            }
        }

        /// Waits up to `timeout` for the lock, and stops waiting (throwing) as soon as `call` is abandoned.
        func take(within timeout: Duration, call: SandboxCall) throws {
            guard flock(descriptor, LOCK_EX | LOCK_NB) != 0 else { return }
            waiting.add(1, ordering: .sequentiallyConsistent)
            defer { waiting.subtract(1, ordering: .sequentiallyConsistent) }
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            repeat {
                guard errno == EWOULDBLOCK || errno == EINTR else {
                    throw KeyringError.other("The app's keyring lock \(path) could not be taken.", KeyringError.Detail(String(cString: strerror(errno))))
                }
                try call.checkNotAbandoned()
                guard clock.now < deadline else {
                    throw KeyringError(
                        .timedOut,
                        "Another process of this app held its keyring file's lock (\(path)) for more than \(timeout); "
                            + "nothing was written.",
                        fix: "That process is stuck in a write to the file (its file system may hang): end it, or "
                            + "retry once it is done.",
                        underlying: "flock \(path)")
                }
                usleep(2_000)
            } while flock(descriptor, LOCK_EX | LOCK_NB) != 0
        }

        func release() {
            flock(descriptor, LOCK_UN)
        }

        func close() {
            _ = Glibc.close(descriptor)
        }
    }
}
