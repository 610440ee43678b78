#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenAuth

/// Token bundles in plain files, one per (service, account): for machines with no Secret Service at all (SSH
/// sessions, containers, CI, WSL), by explicit choice only.
///
/// The tokens are **not encrypted**: any program running as the user, and anyone who gets the disk or a backup, can
/// read them. The package never picks this store by itself — a missing keyring is an error
/// (`KeyringError` with code `serviceUnavailable`), never a reason to write here.
///
/// This module depends on the core alone: an app for containers that keeps its tokens here links no libsecret, GLib
/// or D-Bus. Choose it knowingly, and tell the
/// user, as `tokenctl login --insecure-storage` does:
///
/// ```swift
/// let store = FileAuthStore(service: "api.example.com", account: "ada")
/// try await store.signIn(StoredCredentials(auth: Auth(accessToken: "…")))
/// print("Stored unencrypted in \(store.path)")
/// ```
///
/// Everything else is as TokenAuthKeyring's `KeyringAuthStore` does it:
/// - **The same text.** A file holds exactly what the keyring item's secret holds (TokenAuth's article "The keyring
///   item"), so `tokenctl` reads either, and tokens move between them with `tokenctl import`.
/// - **The same lock and write order** (`CredentialsStore`). Every writer takes the item's lock
///   (`CredentialsStore.itemLock(maximumWait:)`, the one the keyring item of the same service and account has); a
///   refresh writes only if the file still holds the tokens it refreshed (`CredentialsStore.update(_:replacing:)`),
///   so a write never replaces what another process wrote after it read.
/// - **Atomic, private files.** In ``directory`` (`0700`), each item is `SERVICE+ACCOUNT.json` (percent-encoded, one
///   path component whatever the names hold), `0600`, replaced by a temporary file that is synced and renamed over
///   it: a reader, or a process killed mid-write, sees the old file or the new one, never a part. A directory or
///   file that other users can open is refused (`TokenAuthError` with code `storageFailed`, naming the `chmod`), not
///   repaired: the tokens may already have been read.
/// - **By descriptor, on a safe way.** Each operation opens ``directory`` once, walking to it from `/` without
///   following links it cannot trust, and refuses it when a directory on the way could be changed by another user
///   (neither root's nor the user's, or writable by group or others without the sticky bit: OpenSSH's `StrictModes`
///   rule); the error names that directory. Its files are then reached through that descriptor. A read never waits:
///   anything but a regular file (a FIFO, a device, a socket, a link) is refused at once, and so is a file over
///   1 MiB. A temporary file is locked while it is written; only unlocked ones — of killed writers — are cleaned.
/// - **Unreadable files are kept.** Reading one throws `corrupt` or `unsupportedVersion` and changes nothing; the one
///   write allowed to replace it (`CredentialsStore.signIn(_:)`, ``save(_:)``) first keeps it as
///   `SERVICE+ACCOUNT.json.corrupt-STAMP`, never overwriting or deleting it. A refresh never replaces it.
public struct FileAuthStore: CredentialsStore {
    /// The service the tokens are for, e.g. the API's host name.
    public let service: String
    /// The account the tokens belong to.
    public let account: String
    /// The client stored with the tokens by `CredentialsStore.save(_:)`; `nil` keeps whatever client the
    /// file records.
    public let client: OAuthClient?
    /// The store's directory: ``defaultDirectory()`` unless another was given.
    public let directory: URL
    /// When set, saving an `Auth` records the time as `refreshed_at`, as `KeyringAuthStore.wallClock` does; it also
    /// dates the names of unreadable files kept aside (the system's wall clock without it).
    public let wallClock: WallClock?

    /// Creates a store for one (service, account) file.
    /// - Parameters:
    ///   - service: the service the tokens are for, e.g. the API's host name.
    ///   - account: the account the tokens belong to.
    ///   - client: the token endpoint and client identity to record next to the tokens.
    ///   - directory: where the files are; by default ``defaultDirectory()``. It is made `0700` on the first write.
    ///   - wallClock: when set, saves of an `Auth` (what the refresher writes back) record the time as
    ///     `refreshed_at`; saves of `StoredCredentials` store exactly what they are given.
    public init(
        service: String, account: String, client: OAuthClient? = nil, directory: URL? = nil, wallClock: WallClock? = nil
    ) {
        self.service = service
        self.account = account
        self.client = client
        self.directory = directory ?? Self.defaultDirectory()
        self.wallClock = wallClock
    }

    /// `$XDG_STATE_HOME/tokenkeyring`, or `$HOME/.local/state/tokenkeyring` when `XDG_STATE_HOME` is unset or not an
    /// absolute path (the XDG Base Directory rule); the password database's home directory only when `HOME` is unset
    /// or not an absolute path either.
    public static func defaultDirectory() -> URL {
        defaultDirectory(in: .process)
    }

    /// ``defaultDirectory()`` for the environment `directories` reads.
    static func defaultDirectory(in directories: UserDirectories) -> URL {
        // A directory by hint: `URL(fileURLWithPath:)` would ask the file system, on `tokenctl token`'s path.
        URL(filePath: directories.stateHome + "/tokenkeyring", directoryHint: .isDirectory)
    }

    /// The item's file: ``directory`` and `SERVICE+ACCOUNT.json`.
    public var path: String { storeDirectory.path(of: fileName ?? "") }

    var entry: String { "the file \(path) (service \"\(service)\", account \"\(account)\")" }

    var storeDirectory: StoreDirectory { StoreDirectory(path: directory.path) }

    private var fileName: String? { FileStoreNames.fileName(service: service, account: account) }

    /// The item's file name, or `storageFailed` when the service and account are too long for one.
    private func checkedFileName() throws -> String {
        guard let fileName else {
            throw TokenAuthError.storageFailed(
                directory.path, "service \"\(service)\" and account \"\(account)\" are too long for a file name "
                    + "(\(FileStoreNames.maximumLength) bytes once encoded)", fix: "Use a shorter service or account name.")
        }
        return fileName
    }

    /// The stored tokens and client, or `nil` when there is no file.
    /// - Throws: `TokenAuthError` — `corrupt` or `unsupportedVersion` for a file that cannot be read (left as it
    ///   is), `storageFailed` for a directory or file that cannot be used or is open to other users.
    public func loadCredentials() async throws -> StoredCredentials? {
        try loadCredentialsNow()
    }

    /// ``loadCredentials()`` on the calling thread: a few system calls, no task.
    package func loadCredentialsNow() throws -> StoredCredentials? {
        let name = try checkedFileName()
        guard let bytes = try storeDirectory.withDirectory(creating: false, { try $0.read(name) }) ?? nil else {
            return nil
        }
        return try decode(bytes)
    }

    /// Stores tokens and client, replacing the file atomically. A file this version cannot read is first kept as
    /// `NAME.json.corrupt-STAMP` (dated by ``wallClock``, else the system's), never overwritten. It takes no lock:
    /// `AuthManager` calls it holding `CredentialsStore.itemLock(maximumWait:)`; other writers use
    /// `CredentialsStore.signIn(_:)`.
    /// - Returns: where an unreadable file was kept, when there was one; else `nil`.
    @discardableResult
    public func save(_ credentials: StoredCredentials) async throws -> String? {
        let name = try checkedFileName()
        let bytes = Array(try StoredBundleFormat.encode(credentials).utf8)
        return try storeDirectory.withDirectory(creating: true) { folder in
            var keptAt: String?
            if let existing = try folder.read(name), (try? decode(existing)) == nil {
                keptAt = try folder.keepAside(name, stamp: Self.stamp((wallClock ?? systemWallClock)()))
            }
            try folder.write(bytes, to: name)
            return keptAt
        } ?? nil
    }

    /// The file's lock, in the store's own directory (`.locks`, 0700): every process that uses this directory takes
    /// it, whatever its environment.
    public func itemLock(maximumWait: Duration) -> FileRefreshLock {
        FileRefreshLock(
            service: service, account: account, directory: directory.appendingPathComponent(".locks"),
            maximumWait: maximumWait)
    }

    /// Where a refresh's answer is kept until the file holds it: in the user's runtime directory, in memory — not in
    /// the store's directory, whose disk may be what refused the answer.
    public var refreshJournal: FileRefreshJournal {
        FileRefreshJournal(name: "file-" + FileRefreshLock.digest(directory.path, service + "\u{0}" + account))
    }

    /// Removes the file without taking its lock, whatever it holds (files kept aside stay); use
    /// `CredentialsStore.delete()` elsewhere.
    /// - Returns: whether there was one.
    public func remove() async throws -> Bool {
        let name = try checkedFileName()
        return try storeDirectory.withDirectory(creating: false) { try $0.remove(name) } ?? false
    }

    /// The credentials in `bytes`; a file that is not UTF-8 text is `corrupt`. The fix names what a sign-in does.
    private func decode(_ bytes: [UInt8]) throws -> StoredCredentials {
        do {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw TokenAuthError.corrupt(entry, "it is not UTF-8 text")
            }
            return try StoredBundleFormat.decode(text, entry: entry)
        } catch let error as TokenAuthError {
            throw TokenAuthError(
                error.code, error.reason,
                fix: "Sign in again or import tokens to replace it: the file is then kept as \(path).corrupt-DATE, "
                    + "never overwritten. Or remove it.")
        }
    }

    /// `2026-11-22T18:30:00Z` as `20261122T183000Z`: a file name's date, in UTC.
    static func stamp(_ date: Date) -> String {
        date.formatted(stampStyle)
    }

    private static let stampStyle = Date.ISO8601FormatStyle(
        dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted, timeZone: .gmt)
}
