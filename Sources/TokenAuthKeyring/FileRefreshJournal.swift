#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TokenAuth

/// A `RefreshJournal` in a file of the user's runtime directory in memory: where `AuthManager` keeps a refresh's
/// answer from its arrival until the keyring item (or the file store's file) holds it, and where the next process
/// finds it when the store could not take it.
///
/// The file is `answer-KIND-HASH.json` beside the items' refresh locks — `/run/user/UID/tokenkeyring/`, in a Flatpak
/// sandbox the app's shared `$XDG_RUNTIME_DIR/app/$FLATPAK_ID/tokenkeyring/`, without logind
/// `/dev/shm/tokenkeyring-UID/` — a tmpfs directory of the user's (0700) that no other user can open, in which the
/// file is 0600 and replaced atomically (a temporary file renamed over it). It holds the answer and the stored version
/// it replaces, each in the keyring item's text, and lives only until the answer is stored: usually a few
/// milliseconds.
///
/// Why a file on a tmpfs, and not the kernel's key retention service (`add_key` on the user keyring): the keyring's
/// keys must have their permissions set for another process of the user to read them, and the seccomp filters of
/// Flatpak and Docker refuse its system calls (EPERM) — exactly where a desktop app or CI job runs. A tmpfs file needs
/// nothing that a sandbox refuses, is found by every process of the user through the same path as the lock that
/// orders them, and never reaches a disk (short of swap, which holds the keyring daemon's memory too). It holds no
/// more than the keyring item itself holds, readable by the same user.
public struct FileRefreshJournal: RefreshJournal {
    /// The file.
    public let path: String

    /// The largest kept answer read: two token bundles are a few KiB.
    static let maximumSize = 256 * 1024

    /// A journal named `name` in `directory` (by default the user's runtime directory).
    package init(name: String, directory: String? = nil) {
        path = (directory ?? RuntimeDirectory.path) + "/answer-\(name).json"
    }

    public var location: String { path }

    /// What the file holds: the answer and the version it replaces, in the stored format.
    private struct Entry: Codable {
        var version = 1
        var answer: String
        var base: String?
    }

    public func keep(_ answer: Auth, replacing base: Auth?) throws {
        let entry = Entry(
            answer: try StoredBundleFormat.encode(StoredCredentials(auth: answer)),
            base: try base.map { try StoredBundleFormat.encode(StoredCredentials(auth: $0)) })
        let bytes = Array(try JSONEncoder().encode(entry))
        let directory = String(path[..<path.lastIndex(of: "/")!])
        try RuntimeDirectory.prepare(directory)
        var template = Array("\(directory)/.answer-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)  // O_EXCL, mode 0600
        guard descriptor >= 0 else { throw failure("no temporary file can be made beside it") }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let complete = written == bytes.count && fsync(descriptor) == 0
        guard close(descriptor) == 0, complete, rename(temporary, path) == 0 else {
            let problem = failure("it cannot be written")
            unlink(temporary)
            throw problem
        }
    }

    public func keptAnswer() throws -> KeptAnswer? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw failure("it cannot be opened")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid(),
            info.st_mode & 0o077 == 0, info.st_size <= Self.maximumSize
        else {
            throw failure("it is not a private file of this user's, of at most \(Self.maximumSize) bytes")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count == bytes.count else { throw failure("it cannot be read") }
        do {
            let entry = try JSONDecoder().decode(Entry.self, from: Data(bytes))
            guard entry.version == 1 else { throw failure("it is of an unknown version") }
            let where_ = "the kept answer \(path)"
            return KeptAnswer(
                answer: try StoredBundleFormat.decode(entry.answer, entry: where_).auth,
                base: try entry.base.map { try StoredBundleFormat.decode($0, entry: where_).auth })
        } catch let error as TokenAuthError {
            throw error
        } catch {
            throw failure("it is not a kept answer")
        }
    }

    public func discard() throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure("it cannot be removed") }
    }

    private func failure(_ problem: String) -> TokenAuthError {
        TokenAuthError(
            .storageFailed,
            "The refresh answer kept in \(path) could not be used: \(problem) (\(String(cString: strerror(errno)))).",
            fix: "Check that \(path)'s directory belongs to this user and has room.")
    }
}
