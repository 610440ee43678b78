import Foundation

/// A process as `/proc/PID/stat` shows it: its parent, process group and session (proc(5)).
package struct ProcessStat: Sendable, Equatable {
    package let pid: Int32
    package let parent: Int32
    package let group: Int32
    package let session: Int32

    /// Reads `/proc/PID/stat`; `nil` for a process that has gone.
    package static func of(_ pid: Int32) -> ProcessStat? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")")
        else { return nil }
        // After the command name in parentheses (which may hold spaces and parentheses): state, ppid, pgrp, session.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 3, let parent = Int32(fields[1]), let group = Int32(fields[2]), let session = Int32(fields[3])
        else { return nil }
        return ProcessStat(pid: pid, parent: parent, group: group, session: session)
    }

    /// Every process now running (those that end while it reads are left out).
    package static func all() throws -> [ProcessStat] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap { Int32($0).flatMap(of) }
    }

    /// This process.
    package static func own() throws -> ProcessStat {
        guard let own = of(getpid()) else { throw CocoaError(.fileReadUnknown) }
        return own
    }
}
