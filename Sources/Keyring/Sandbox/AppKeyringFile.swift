import CLibSecret
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The app's keyring file in a sandbox, as this process holds it through libsecret's file backend: what libsecret
/// needs around its calls there, and the state of this process that keeps it right.
///
/// - libsecret aborts the whole process (an assertion) on a keyring file whose body is damaged, so the file is read
///   first and refused unless it is libsecret's format (``check(_:)``).
/// - libsecret keeps the file in memory with the key the Secret portal gave. Version 0.21 reads it again when its
///   modification time *in whole seconds* changed, 0.20 never: a write by another process stays unseen until
///   libsecret's backend is dropped (`secret_service_disconnect`) and the next call builds a new one, which asks the
///   portal for the key again (one round trip, which libsecret < 0.21.4 can miss and wait for ever). So when the file
///   is not as it was before this process's last call, the backend is dropped before the call (``prepareCall(droppingBackend:)``).
/// - libsecret guards its writes only with GIO's etag check, which is not atomic with its rename, so this package's
///   writes also take the file's own lock — and hold it only while they write, never across a portal round trip
///   (``write(timeout:call:load:_:)``).
///
/// One per process (``ofThisProcess``), as libsecret's file backend is: dropping it drops it for every caller, so the
/// calls that may drop it take turns (``turns``), and what is known of its copy of the file is known once.
final class AppKeyringFile: Sendable {
    /// This process's: the file at ``Keyring/sandboxKeyringFile``.
    static let ofThisProcess = AppKeyringFile(path: Keyring.sandboxKeyringFile)

    /// Whether libsecret's password API takes its file backend in this process: in a Flatpak (`/.flatpak-info`) or Snap
    /// (`SNAP_NAME`) sandbox, or when `SECRET_BACKEND=file` asks for it.
    static let isLibsecretsBackend: Bool = {
        // getenv, not ProcessInfo's environment: that copies every variable into a dictionary, on every
        // `tokenctl token`'s path.
        DesktopPortal.isSandboxed || getenv("SNAP_NAME") != nil
            || getenv("SECRET_BACKEND").map { String(cString: $0) == "file" } == true
    }()

    /// The file's path.
    let path: String

    /// The process's calls take turns (``SandboxCall``): a call that drops libsecret's backend (``prepareCall(droppingBackend:)``)
    /// must not do so under another call's feet.
    let turns = DispatchSemaphore(value: 1)

    /// How many abandoned calls have not come back from libsecret yet (their threads are still inside it).
    var abandonedCallsRunning: Int { abandonedRunning.load(ordering: .sequentiallyConsistent) }
    let abandonedRunning = Atomic<Int>(0)

    /// What this process knows of libsecret's copy of the file: the file's stamp taken before libsecret last read it
    /// (or after this process's own write), so that the copy is at least as new as the file was then (`.some(nil)`:
    /// the file did not exist); `nil` when nothing is known.
    private let lastSeen = Mutex<Stamp??>(nil)

    /// Set when libsecret's copy may be older than ``lastSeen`` says (a call failed after libsecret changed its copy, or
    /// an abandoned call came back and may have cached a backend of its own): the next call drops the backend.
    private let backendMayBeStale = Atomic(false)

    /// How many calls of this process wait for the keyring file's lock now.
    var lockWaiters: Int { waiting.load(ordering: .sequentiallyConsistent) }
    fileprivate let waiting = Atomic<Int>(0)

    /// How often a write starts over because another process wrote between its key fetch and its lock.
    static let maximumRounds = 4

    init(path: String) {
        self.path = path
    }

    /// The file's identity and version: device, inode, size and modification time in nanoseconds. Every write renames
    /// a new file over the old one, so a write changes the inode.
    struct Stamp: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Int64
    }

    static func stamp(_ path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Stamp(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// Before a call, in its turn: refuses a damaged file, and drops libsecret's backend when its copy may be older
    /// than the file — the file is not as it was before this process's last call, or the copy was marked
    /// (``markBackendStale()``) — or `always`. The next libsecret call then reads the file afresh, with the portal's
    /// key fetched anew.
    ///
    /// The stamp is taken *before* the call, not after it: libsecret may load the file during a call after another
    /// process wrote it in the same second, and a stamp taken after the call would then match the file while
    /// libsecret's copy is older (a refresh under the item's lock read the spent refresh token so).
    ///
    /// Only a call holding the process's turn calls this: it is the one place that drops libsecret's backend, so that
    /// no other call of the process meets a dropped backend — and a portal round trip — in the middle of its write.
    func prepareCall(droppingBackend always: Bool = false) throws {
        try Self.check(path)
        let now = Self.stamp(path)
        let stale = backendMayBeStale.exchange(false, ordering: .sequentiallyConsistent)
        let dropBackend = lastSeen.withLock { seen in
            defer { seen = .some(now) }
            return always || stale || seen != .some(now)
        }
        // Before the first call there is no backend: dropping none costs nothing.
        if dropBackend { secret_service_disconnect() }
    }

    /// Marks libsecret's copy of the file as not to be trusted: the next call in its turn drops the backend. Safe from
    /// any thread, unlike dropping it at once, which could do so under the feet of a call that is writing.
    func markBackendStale() {
        backendMayBeStale.store(true, ordering: .sequentiallyConsistent)
    }

    /// A store or a delete: `load` outside the lock, then `write` under it, with libsecret's copy of the file as the
    /// file is. Runs in `call`'s turn, after ``prepareCall(droppingBackend:)``.
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
    ///    backend that the load left cached (only a call in its turn drops it), so it never talks to the portal. A
    ///    write that fails is undone where GIO replaced the file anyway (``restoreAfterFailedWrite(original:existed:)``).
    func write<T>(timeout: Duration, call: SandboxCall, load: () throws -> Void, _ write: () throws -> T) throws -> T {
        let lock = try LockFile(path: path + ".lock", owner: self)
        defer { lock.close() }
        for round in 1...Self.maximumRounds {
            try call.throwIfAbandoned()
            if round > 1 { try prepareCall(droppingBackend: true) }
            try load()
            try call.throwIfAbandoned()  // back from a portal that answered too late: no lock for it
            try lock.take(within: timeout, call: call)
            defer { lock.release() }
            let current = Self.stamp(path)
            let unchanged = lastSeen.withLock { $0 == .some(current) }
            guard unchanged, !backendMayBeStale.load(ordering: .sequentiallyConsistent) else { continue }
            // What the file holds: a failed write may have to be undone (``restoreAfterFailedWrite(original:existed:)``).
            let original = try? Self.contents(of: path)
            try call.beginWriting()
            do {
                let result = try write()
                // libsecret's copy is what it just wrote, and no other writer of this package could come between.
                let written = Self.stamp(path)
                lastSeen.withLock { $0 = .some(written) }
                return result
            } catch {
                // libsecret changes its copy before it writes the file, and keeps the change when the write fails.
                markBackendStale()
                restoreAfterFailedWrite(original: original, existed: current != nil)
                throw error
            }
        }
        throw KeyringError.appKeyringWrittenEachRound(rounds: Self.maximumRounds)
    }
}

extension AppKeyringFile {
    /// After a write that libsecret reported as failed, under the keyring file's lock: makes sure the failed write
    /// leaves the file as it was (`original`, read under the same lock just before the write; no file at all when it
    /// had not `existed`).
    ///
    /// libsecret writes with GIO's `g_file_replace_contents`: a temporary file beside it, then, when GIO closes that,
    /// `FILE` linked to its backup `FILE~` and the temporary file renamed over `FILE`. When writing the temporary file
    /// fails (a full disk, a file size limit), GIO reports the error at once — libsecret returns it — and *then* closes
    /// the stream as if it were complete, on a thread of its own: the new file, empty or cut short, is renamed over
    /// `FILE` a moment after the caller was told that nothing was written (seen with GLib 2.74 in the simulated
    /// sandbox). Every item of the app would then be gone: the whole file refused as damaged, the user signed out of
    /// everything, or libsecret aborting the process on it.
    ///
    /// 1. The temporary file this process still holds open (GIO renames before it closes) is removed, so that the
    ///    rename to come fails and `FILE` stays; a rename already done is undone in 2.
    /// 2. Where `FILE` is no longer `original` — renamed over already, or truncated by GIO's other way of writing (in
    ///    place, for a file with further hard links, after copying it to `FILE~`) — and `FILE~` holds exactly
    ///    `original`, `FILE~` is renamed back over `FILE` (a rename needs no free space). Else nothing here knows what
    ///    the file should be, and the next call's ``check(_:)`` refuses a damaged one, naming it.
    /// 3. Where there was no file, GIO wrote the new one in place (no temporary file, no backup): what is there now is
    ///    the failed write's beginning, which no later call could use (refused as damaged until someone removes it by
    ///    hand). It is removed: under the lock, nothing else wrote it, and it held nothing but what was refused.
    func restoreAfterFailedWrite(original: Data?, existed: Bool) {
        discardUnfinishedReplacement()
        guard existed else {
            _ = unlink(path)
            return
        }
        guard let original, (try? Self.contents(of: path)) != original else { return }
        let backup = path + "~"
        guard (try? Self.contents(of: backup)) == original else { return }
        _ = rename(backup, path)
    }

    /// Removes the temporary files of GIO's replacements (`.goutputstream-XXXXXX`) beside the keyring file that this
    /// process holds open: only its own, never another process's.
    private func discardUnfinishedReplacement() {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        guard let resolved = realpath(directory.isEmpty ? "/" : directory, nil) else { return }
        let prefix = String(cString: resolved) + "/.goutputstream-"
        free(resolved)
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in descriptors {
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink("/proc/self/fd/" + descriptor, &target, Int(PATH_MAX))
            guard length > 0 else { continue }
            let opened = String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if opened.hasPrefix(prefix), !opened.hasSuffix(" (deleted)") { unlink(opened) }
        }
    }
}

extension AppKeyringFile {
    /// The keyring file's lock file, open; its `flock` taken and given back by ``take(within:call:)`` and ``release()``.
    /// Owned by the call's thread: it holds the lock only while it writes, so it never leaves it held when abandoned.
    private struct LockFile {
        let path: String
        let owner: AppKeyringFile
        let descriptor: Int32

        init(path: String, owner: AppKeyringFile) throws {
            self.path = path
            self.owner = owner
            let directory = URL(filePath: path).deletingLastPathComponent().path
            try? FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw KeyringError.appKeyringLockUnopenable(path, errno: errno) }
        }

        /// Waits up to `timeout` for the lock, and stops waiting (throwing) as soon as `call` is abandoned.
        func take(within timeout: Duration, call: SandboxCall) throws {
            guard flock(descriptor, LOCK_EX | LOCK_NB) != 0 else { return }
            owner.waiting.add(1, ordering: .sequentiallyConsistent)
            call.waitingForLock.store(true, ordering: .sequentiallyConsistent)
            defer {
                call.waitingForLock.store(false, ordering: .sequentiallyConsistent)
                owner.waiting.subtract(1, ordering: .sequentiallyConsistent)
            }
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            repeat {
                guard errno == EWOULDBLOCK || errno == EINTR else {
                    throw KeyringError.appKeyringLockFailed(path, errno: errno)
                }
                try call.throwIfAbandoned()
                guard clock.now < deadline else { throw KeyringError.appKeyringLockHeld(path, for: timeout) }
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
