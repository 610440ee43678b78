#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A `RefreshJournal` in a file of the user's runtime directory in memory: where `AuthManager` keeps a refresh's
/// answer from its arrival until the keyring item (or the file store's file) holds it, and where the next process
/// finds it when the store could not take it.
///
/// The file is `answer-KIND-HASH.json` beside the items' refresh locks — `/run/user/UID/tokenkeyring/`, in a Flatpak
/// sandbox the app's shared `$XDG_RUNTIME_DIR/app/$FLATPAK_ID/tokenkeyring/`, without logind the directory recorded in
/// `~/.local/state/tokenkeyring/runtime-directory` (a private `$XDG_RUNTIME_DIR`, else an unpredictable name in
/// `/dev/shm`) — a tmpfs directory of the user's (0700) that no other user can open, in which the
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
        try RuntimeDirectory.prepare(String(path[..<path.lastIndex(of: "/")!]))
        do throws(PrivateFile.Problem) {
            try PrivateFile.replace(path, with: bytes)
        } catch {
            throw failure(error.sentence)
        }
    }

    public func keptAnswer() throws -> KeptAnswer? {
        let read: [UInt8]?
        do throws(PrivateFile.Problem) {
            read = try PrivateFile.read(path, limit: Self.maximumSize)
        } catch {
            throw failure(error.sentence)
        }
        guard let bytes = read else { return nil }
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
        do throws(PrivateFile.Problem) {
            try PrivateFile.remove(path)
        } catch {
            throw failure(error.sentence)
        }
    }

    /// A `storageFailed` error: the kept answer cannot be used because of `problem`.
    private func failure(_ problem: String) -> TokenAuthError {
        TokenAuthError(
            .storageFailed, "The refresh answer kept in \(path) could not be used: \(problem).",
            fix: "Check that \(path)'s directory belongs to this user and has room.")
    }
}
