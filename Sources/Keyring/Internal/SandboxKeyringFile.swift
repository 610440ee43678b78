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

/// What libsecret's file backend needs checked around its calls, in the sandbox.
///
/// - libsecret aborts the whole process (an assertion) on a keyring file whose body is damaged, so the file is read
///   first and refused as damaged unless it is libsecret's format: its header, version 1.0, and a well-formed
///   `(uayutua(a{say}ay))` whose salt is as long as it says.
/// - libsecret reads the file again only when its modification time, in whole seconds, changed: a write by another
///   process in the same second would stay unseen. So when the file is not as it was before this process's last
///   call, libsecret's backend is dropped (`secret_service_disconnect`) and the call opens the file afresh; a store
///   that still meets a write it had not seen fails ("externally modified") rather than overwriting it.
/// - libsecret's check of that (GIO's etag) is not atomic with its rename, so this package's writes also take the
///   file's own lock (``withWriteLock(_:timeout:_:)``).
enum SandboxKeyringFile {
    /// The file's identity and version: device, inode, size and modification time in nanoseconds.
    struct Stamp: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Int64
    }

    /// The calls of this process take turns: a call that drops libsecret's backend (see ``prepare(_:)``) must not do
    /// so under another call's feet. A call abandoned at its timeout gives its turn back then (see ``Turn``).
    static let turns = DispatchSemaphore(value: 1)

    /// One call's turn: taken once, given back once — by the call when it ends, or for it when it is abandoned.
    final class Turn: Sendable {
        private let state = Atomic<Int>(0)  // 0 waiting, 1 held, 2 given back

        /// Waits up to `timeout` for the turn; `false` when it did not come.
        func take(within timeout: Duration) -> Bool {
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            guard SandboxKeyringFile.turns.wait(timeout: .now() + seconds) == .success else { return false }
            if state.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent).exchanged { return true }
            SandboxKeyringFile.turns.signal()  // abandoned while it waited: the turn goes on at once
            return false
        }

        /// Throws when the turn is no longer held: the call was abandoned at its timeout, so it must not write.
        func proceed() throws {
            guard state.load(ordering: .sequentiallyConsistent) == 1 else {
                throw KeyringError.timedOut(after: .zero, "abandoned before writing")
            }
        }

        /// Whether the call still holds its turn (it was not abandoned).
        var isHeld: Bool { state.load(ordering: .sequentiallyConsistent) == 1 }

        /// Gives the turn back if it is held; after that, the call holds none.
        func giveBack() {
            if state.compareExchange(expected: 1, desired: 2, ordering: .sequentiallyConsistent).exchanged {
                SandboxKeyringFile.turns.signal()
            } else {
                _ = state.compareExchange(expected: 0, desired: 2, ordering: .sequentiallyConsistent)
            }
        }
    }

    /// The file as it was before this process's last call; `nil` before the first.
    private static let lastSeen = Mutex<Stamp??>(nil)

    static let header: [UInt8] = Array("GnomeKeyring\n\r\0\n".utf8)

    static func stamp(_ path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Stamp(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// Before a call: refuses a damaged file, and makes libsecret read the file again when it is not as it was before
    /// this process's last call.
    ///
    /// The stamp is taken *before* the call, not after it: libsecret may load the file during a call after another
    /// process wrote it in the same second, and a stamp taken after the call would then match the file while
    /// libsecret's copy is older (a refresh under the item's lock read the spent refresh token so). After this
    /// process's own writes the next call reads afresh too, at the cost of one portal round trip.
    static func prepare(_ path: String) throws {
        try check(path)
        let now = stamp(path)
        let reopen = lastSeen.withLock { seen in
            defer { seen = .some(now) }
            return seen != nil && seen! != now
        }
        if reopen { secret_service_disconnect() }
    }

    /// Runs `write` — a store or a clear — holding an exclusive `flock` on the keyring file's lock (`FILE.lock`, 0600,
    /// beside it, so every instance of the app shares it), after making libsecret read the file afresh.
    ///
    /// libsecret guards its writes only with GIO's etag check, which is not atomic with the rename: two processes
    /// that write at the same instant both pass it, and the second rename drops the first one's item (seen in the
    /// simulated sandbox). The lock orders this package's writers; other libsecret clients in the same sandbox do
    /// not take it. Waiting for it is bounded by `timeout`.
    static func withWriteLock<T>(_ file: String, timeout: Duration, _ write: () throws -> T) throws -> T {
        let path = file + ".lock"
        let directory = URL(filePath: path).deletingLastPathComponent().path
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw KeyringError(
                .misconfigured, "The app's keyring lock file \(path) cannot be opened (\(String(cString: strerror(errno)))).",
                fix: "Check that the directory belongs to this user and is writable.")
        }
        defer { close(descriptor) }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw KeyringError.other("The app's keyring lock \(path) could not be taken.", KeyringError.Detail(String(cString: strerror(errno))))
            }
            guard clock.now < deadline else {
                throw KeyringError.timedOut(after: timeout, "another process of this app held the keyring file's lock \(path)")
            }
            usleep(2_000)
        }
        secret_service_disconnect()
        return try write()
    }

    /// Drops libsecret's backend, so that the next call reads the file afresh.
    static func reopen() {
        secret_service_disconnect()
    }

    /// Throws when the file at `path` exists and is not a keyring file libsecret can read without aborting.
    static func check(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyringError(
                .misconfigured, "The app's keyring file \(path) cannot be read.",
                fix: "Check that it belongs to this user and is readable and writable (chmod 600).")
        }
        if let problem = problem(in: data) {
            throw KeyringError(
                .misconfigured, "The app's keyring file \(path) is damaged: \(problem).",
                fix: "Move it aside (mv '\(path)' '\(path).damaged'); the app then starts with an empty keyring and "
                    + "signs in again.")
        }
    }

    /// Why `data` is not a keyring file, or `nil` when it is one. An empty file is not (libsecret refuses its header);
    /// a missing one is fine (libsecret starts one).
    static func problem(in data: Data) -> String? {
        guard !data.isEmpty else { return "it is empty" }
        guard data.count >= header.count + 2, Array(data.prefix(header.count)) == header else {
            return "its header is not libsecret's"
        }
        guard data[data.startIndex + header.count] == 1, data[data.startIndex + header.count + 1] == 0 else {
            return "it is not of version 1.0"
        }
        let body = data.dropFirst(header.count + 2)
        let bytes = body.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        return Variant.withType("(uayutua(a{say}ay))") { type -> String? in
            let variant = g_variant_ref_sink(g_variant_new_from_bytes(type, bytes, 0))
            defer { g_variant_unref(variant) }
            guard g_variant_is_normal_form(variant) != 0 else { return "its contents are not well-formed" }
            let size = g_variant_get_child_value(variant, 0)
            let salt = g_variant_get_child_value(variant, 1)
            defer {
                g_variant_unref(size)
                g_variant_unref(salt)
            }
            guard UInt32(littleEndian: g_variant_get_uint32(size)) == UInt32(g_variant_n_children(salt)) else {
                return "its salt is not as long as it says"
            }
            // libsecret writes 100000; a damaged count would make the key derivation run for hours.
            let iterations = g_variant_get_child_value(variant, 2)
            defer { g_variant_unref(iterations) }
            guard (1...10_000_000).contains(UInt32(littleEndian: g_variant_get_uint32(iterations))) else {
                return "its key derivation count is out of range"
            }
            return nil
        }
    }
}
