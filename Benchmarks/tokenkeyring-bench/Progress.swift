import Foundation

/// Progress lines on standard error, so a long run shows it is alive; the table goes to standard output.
enum Progress {
    static func say(_ message: String) {
        FileHandle.standardError.write(Data(("  · " + message + "\n").utf8))
    }
}
