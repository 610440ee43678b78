#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension AppKeyringFile {
    /// After a write that libsecret reported as failed, under the keyring file's lock: makes sure the failed write
    /// leaves the file as it was (`original`, read under the same lock just before the write).
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
    func restoreAfterFailedWrite(original: Data?) {
        discardUnfinishedReplacement()
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
