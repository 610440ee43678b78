#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension RuntimeDirectory {
    /// Where a user without logind's `/run/user/UID` keeps the session's locks and answers: the directory recorded in
    /// a private folder of the home directory, chosen once by the first process that needs it.
    ///
    /// The record is what makes every process of the user agree although their environments differ (one has
    /// `XDG_RUNTIME_DIR`, the next is a cron job without it), and what keeps other users out: they cannot read the
    /// home directory's folder, so they cannot know the name, nor write the record.
    package struct Rendezvous {
        /// The home directory (the password database's).
        let home: String
        let uid: uid_t
        /// This process's `XDG_RUNTIME_DIR`, a candidate when nothing usable is recorded.
        let xdgRuntimeDirectory: String?
        /// Where an unpredictable directory in memory is made: `/dev/shm`.
        let sharedMemory: String

        package init(home: String, uid: uid_t, xdgRuntimeDirectory: String?, sharedMemory: String = "/dev/shm") {
            self.home = home
            self.uid = uid
            self.xdgRuntimeDirectory = xdgRuntimeDirectory
            self.sharedMemory = sharedMemory
        }

        /// `~/.local/state/tokenkeyring`: the record's folder, 0700.
        var stateDirectory: String { home + "/.local/state/tokenkeyring" }
        /// The record: the chosen directory's absolute path.
        package var record: String { stateDirectory + "/runtime-directory" }
        /// The last resort, on disk: where nothing in memory is usable.
        package var onDisk: String { stateDirectory + "/runtime" }

        /// The recorded directory when it is still usable; else a new one, recorded. Any failure on the way gives
        /// ``onDisk``, which ``RuntimeDirectory/prepare(_:)`` then makes or reports with a fix.
        package func directory() -> String {
            guard makeStateDirectory() else { return onDisk }
            let folder = open(stateDirectory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folder >= 0 else { return onDisk }
            defer { close(folder) }
            // One chooser at a time: a second process waits, then reads what the first recorded.
            guard (try? systemCall { flock(folder, LOCK_EX) }) != nil else { return onDisk }
            if let recorded = recorded(), RuntimeDirectory.isPrivateDirectory(recorded, uid: uid) { return recorded }
            let chosen = choose()
            do throws(PrivateFile.Problem) {
                try PrivateFile.replace(record, with: Array(chosen.utf8))
            } catch {
                return onDisk  // unrecorded, another process would choose otherwise: the shared last resort instead
            }
            return chosen
        }

        /// The recorded path, when the record is a private file of the user's holding an absolute path.
        func recorded() -> String? {
            guard let bytes = try? PrivateFile.read(record, limit: 4096) else { return nil }
            let path = String(decoding: bytes, as: UTF8.self)
            return path.hasPrefix("/") && !path.contains("\n") && !path.contains("\0") ? path : nil
        }

        /// A new directory: in `XDG_RUNTIME_DIR` when it is private to the user, else an unpredictable one in memory,
        /// else ``onDisk``.
        func choose() -> String {
            if let runtime = xdgRuntimeDirectory, runtime.hasPrefix("/"),
                RuntimeDirectory.isPrivateDirectory(runtime, uid: uid)
            {
                let directory = runtime + "/tokenkeyring"
                if mkdir(directory, 0o700) == 0 || errno == EEXIST,
                    RuntimeDirectory.isPrivateDirectory(directory, uid: uid)
                {
                    return directory
                }
            }
            var template = Array("\(sharedMemory)/tokenkeyring-\(uid)-XXXXXX".utf8CString)
            if mkdtemp(&template) != nil {
                return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            return onDisk
        }

        /// Makes `~/.local/state/tokenkeyring` (each missing folder 0700) and checks that it is the user's own and
        /// closed to others; `false` when it is not, and nothing is recorded.
        func makeStateDirectory() -> Bool {
            var path = ""
            for component in stateDirectory.split(separator: "/") {
                path += "/" + component
                if mkdir(path, 0o700) != 0, errno != EEXIST { return false }
            }
            return RuntimeDirectory.isPrivateDirectory(stateDirectory, uid: uid)
        }
    }
}
