import Foundation

/// A directory of a test's own under the system's temporary directory, removed when the value is released.
package final class TemporaryDirectory: Sendable {
    /// The directory.
    package let url: URL

    /// Creates an empty directory.
    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tokenkeyring-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes an executable script `name` with `contents` and returns its path.
    package func script(_ name: String, _ contents: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }
}
