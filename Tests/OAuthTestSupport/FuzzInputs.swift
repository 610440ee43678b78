import Foundation
import Testing

/// The inputs of one fuzz target (`Fuzz/`, run by `scripts/fuzz`): its seed corpus and every input that ever
/// crashed it, for the replay tests.
package enum FuzzInputs {
    package struct Input: Sendable {
        /// `Corpus/<target>/<file>` or `Crashes/<target>/<file>`, for failure messages.
        package var name: String
        package var bytes: Data
        /// The bytes as the fuzz targets read text: invalid UTF-8 becomes U+FFFD.
        package var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// `Fuzz/` at the top of the repository, found from this file's path.
    package static let root = URL(filePath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fuzz")

    /// Every input of `target`: `Fuzz/Corpus/<target>/*`, then `Fuzz/Crashes/<target>/*`, hidden files left out.
    /// Fails when there are no seeds, so a moved or renamed directory cannot make a replay pass on nothing.
    package static func all(of target: String) throws -> [Input] {
        let seeds = try inputs(in: "Corpus/\(target)")
        try #require(!seeds.isEmpty, "no seeds in \(root.path(percentEncoded: false))/Corpus/\(target)")
        return seeds + (try inputs(in: "Crashes/\(target)"))
    }

    private static func inputs(in directory: String) throws -> [Input] {
        let url = root.appending(path: directory)
        guard FileManager.default.fileExists(atPath: url.path(percentEncoded: false)) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
            .map { Input(name: "\(directory)/\($0.lastPathComponent)", bytes: try Data(contentsOf: $0)) }
    }
}
